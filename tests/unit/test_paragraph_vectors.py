"""Paragraph vectors: a section's dense vector is composed from its heading's and its
paragraphs' vectors, and a paragraph embedded once is never embedded again, whatever
changed around it (the embedded store's vector cache)."""

import logging
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient

from raggin_lsp.corpus.chunk import paragraphs
from raggin_lsp.embed.base import Embedding, SparseVector
from raggin_lsp.embed.vector_cache import VectorCache
from raggin_lsp.retrieve.search import search
from raggin_lsp.store import DocsIndex, StoreSettings
from raggin_lsp.store.backends import VECTOR_CACHE
from raggin_lsp.store.schema import TEXT, dense_units
from tests.unit.store_doubles import HashingTestEmbedder, section

HEADING_WEIGHT = 5.0
FIRST = "The cache keeps rendered pages on the server between requests."
MIDDLE = "revalidatePath purges the cached data of one path on demand."
LAST = "Tags group entries so that one call can purge several pages."


class ParagraphEmbedder(HashingTestEmbedder):
    """The hashing double, as a lexical profile with paragraph vectors."""

    def __init__(self) -> None:
        super().__init__(name="test-paragraphs", fingerprint="9a7a9a7a0001")
        self.spec = replace(self.spec, heading_weight=HEADING_WEIGHT)

    def embed_sparse(self, texts: Sequence[str]) -> list[SparseVector]:
        return [self._embed(text).sparse for text in texts]


def page(version: str, middle: str = MIDDLE) -> list:
    return [section(version, "caching", "Revalidating", "\n\n".join([FIRST, middle, LAST]))]


@pytest.fixture
def embedder() -> ParagraphEmbedder:
    return ParagraphEmbedder()


@pytest.fixture
def index(embedder: ParagraphEmbedder, tmp_path: Path) -> Iterator[DocsIndex]:
    with DocsIndex.open(StoreSettings(path=tmp_path / "index"), embedder.spec) as opened:
        yield opened


def test_a_changed_paragraph_is_embedded_alone_not_with_its_neighbours(
    index: DocsIndex, embedder: ParagraphEmbedder
) -> None:
    first = index.index_version("16.2.0", page("16.2.0"), embedder)
    embedder.embedded_texts.clear()
    changed = "revalidatePath marks one path stale; the next visit renders it again."
    second = index.index_version("16.4.6", page("16.4.6", changed), embedder)

    assert (first.texts_embedded, first.texts_total) == (4, 4)  # heading + 3 paragraphs
    assert embedder.embedded_texts == [changed]
    assert (second.embedded, second.texts_embedded, second.texts_total) == (1, 1, 4)
    assert second.texts_embedded_share == pytest.approx(0.25)
    hit = search(index, embedder, "marks one path stale", "16.4.6", top_k=1)[0]
    assert changed in hit.text


def test_the_stored_vector_is_the_token_weighted_mean_with_the_heading_weighed_more(
    index: DocsIndex, embedder: ParagraphEmbedder
) -> None:
    (only,) = page("16.2.0")
    index.index_version("16.2.0", [only], embedder)
    units = dense_units(only, embedder.spec)
    assert units == [only.heading, FIRST, MIDDLE, LAST]

    vectors = np.stack([embedder._embed(text).dense for text in units])
    weights = np.array([embedder.count_tokens(text) for text in units], dtype=float)
    weights[0] *= HEADING_WEIGHT
    expected = np.average(vectors, axis=0, weights=weights)
    expected /= np.linalg.norm(expected)

    (point,) = index.points_of("16.2.0")
    assert np.allclose(point.vectors[TEXT], expected, atol=1e-6)


def test_a_server_index_counts_each_text_the_model_ran_on_once(
    embedder: ParagraphEmbedder,
) -> None:
    # A server keeps no vector cache: App/Pages twins in two batches run the model twice.
    twins = [
        section("16.2.0", "caching", "Revalidating", FIRST),
        section("16.2.0", "caching", "Revalidating", FIRST, router="pages"),
    ]
    settings, client = StoreSettings(), QdrantClient(":memory:")
    with DocsIndex.open(settings, embedder.spec, client=client) as index:
        report = index.index_version("16.2.0", twins, embedder, batch_size=1)

    assert len(embedder.embedded_texts) == 4
    assert (report.texts_embedded, report.texts_total) == (2, 2)  # heading and paragraph
    assert report.texts_embedded_share == 1.0


def test_a_section_without_paragraphs_and_a_page_outline_are_embedded_whole(
    embedder: ParagraphEmbedder,
) -> None:
    empty = section("16.2.0", "caching", "Revalidating", "")
    outline = replace(page("16.2.0")[0], tag="page")
    assert dense_units(empty, embedder.spec) == [empty.embedding_text()]
    assert dense_units(outline, embedder.spec) == [outline.embedding_text()]


def test_a_cache_that_cannot_be_written_only_costs_time(
    embedder: ParagraphEmbedder, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = StoreSettings(path=tmp_path / "index")
    with DocsIndex.open(settings, embedder.spec) as index:
        index.index_version("16.2.0", page("16.2.0"), embedder)
        (cache,) = (tmp_path / "index").glob(f"*/{VECTOR_CACHE}")
    for leftover in cache.parent.glob(f"{VECTOR_CACHE}*"):
        leftover.unlink()
    cache.mkdir()  # a folder where the file should be: SQLite cannot open it
    embedder.embedded_texts.clear()

    with caplog.at_level(logging.WARNING), DocsIndex.open(settings, embedder.spec) as index:
        report = index.index_version("16.4.6", page("16.4.6", "A new middle paragraph."), embedder)
        hit = search(index, embedder, "new middle paragraph", "16.4.6", top_k=1)[0]

    assert report.texts_embedded == 4  # nothing could be looked up: all embedded again
    assert "A new middle paragraph." in hit.text
    assert "vector cache" in caplog.text


def test_the_cache_gives_back_exactly_what_was_put(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "vectors.sqlite")
    stored = Embedding(
        dense=np.array([0.1, -0.2, 0.3], dtype=np.float32),
        sparse=SparseVector(indices=(3, 70000), values=(1.25, 0.1)),
    )
    cache.put({"some paragraph": stored})
    found = cache.get(["some paragraph", "never embedded"])
    cache.close()

    assert list(found) == ["some paragraph"]
    assert np.array_equal(found["some paragraph"].dense, stored.dense)
    assert found["some paragraph"].sparse == stored.sparse


def test_paragraphs_keep_a_fenced_code_block_whole() -> None:
    text = "Install it:\n\n````bash\nnpm i next\n\n```\nnested\n```\n````\n\n\nThen run it."
    assert paragraphs(text) == [
        "Install it:",
        "````bash\nnpm i next\n\n```\nnested\n```\n````",
        "Then run it.",
    ]

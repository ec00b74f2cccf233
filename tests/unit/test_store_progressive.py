"""Searchable at once: a version answers lexically while its dense vectors fill in.

With a profile whose sparse vectors need no neural model the index stores every section
with its sparse vector first and lists the version as searchable ("lexical only, dense
0%"); dense vectors follow, API reference first, and searches take each section in as
its vectors are published. Stopping at any point keeps what was stored, and the rerun
computes no stored vector again. Both backends (embedded Edge, a Qdrant server).
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from raggin_lsp.corpus.reading_order import value_order
from raggin_lsp.retrieve.search import search
from raggin_lsp.store import DocsIndex, IndexInterrupted, IndexProgress, StoreSettings
from raggin_lsp.store.schema import TEXT
from tests.unit.store_doubles import (
    HashingTestEmbedder,
    LexicalHashingTestEmbedder,
    corpus,
    docs_tree_corpus,
)

VERSION = "16.4.6"


@pytest.fixture
def embedder() -> LexicalHashingTestEmbedder:
    return LexicalHashingTestEmbedder()


@pytest.fixture(params=["edge", "server"])
def index(
    request: pytest.FixtureRequest, embedder: LexicalHashingTestEmbedder, tmp_path: Path
) -> Iterator[DocsIndex]:
    if request.param == "edge":
        opened = DocsIndex.open(StoreSettings(path=tmp_path / "edge-index"), embedder.spec)
    else:
        opened = DocsIndex.open(StoreSettings(), embedder.spec, client=QdrantClient(":memory:"))
    with opened as idx:
        yield idx


def _stage(index: DocsIndex, version: str = VERSION) -> str:
    info = index.version_info(version)
    assert info is not None
    return info.stage


def _dense_pages(index: DocsIndex, embedder: HashingTestEmbedder) -> set[str]:
    """Pages whose sections a dense-only search can find now."""
    query = embedder.embed_query("data route request").dense
    hits = index.rank(TEXT, query, VERSION, None, 100)
    return {str(hit.payload["url_path"]) for hit in hits}


def test_a_version_answers_lexically_before_any_dense_vector_is_computed(
    index: DocsIndex, embedder: LexicalHashingTestEmbedder
) -> None:
    seen: list[tuple[str, list[str], str, set[str]]] = []

    def look_before_the_first_dense_batch() -> None:
        if not seen:
            hits = search(index, embedder, "revalidatePath purges cached data", VERSION, top_k=3)
            seen.append(
                (
                    _stage(index),
                    index.searchable_versions(),
                    hits[0].url_path,
                    _dense_pages(index, embedder),
                )
            )

    index.index_version(
        VERSION, docs_tree_corpus(VERSION), embedder, dense_gate=look_before_the_first_dense_batch
    )

    ((stage, searchable, best, dense_pages),) = seen
    assert stage == "lexical only, dense 0%"
    assert searchable == [VERSION]
    assert best == "/docs/app/api-reference/functions/revalidate-path"
    assert dense_pages == set()
    assert _stage(index) == "hybrid"
    assert index.versions() == [VERSION]
    assert len(_dense_pages(index, embedder)) == 7


def test_dense_vectors_arrive_api_reference_first_and_searches_take_them_in(
    index: DocsIndex, embedder: LexicalHashingTestEmbedder
) -> None:
    stages: list[str] = []
    dense_seen: list[set[str]] = []

    def look() -> None:
        stages.append(_stage(index))
        dense_seen.append(_dense_pages(index, embedder))

    index.index_version(
        VERSION,
        docs_tree_corpus(VERSION),
        embedder,
        batch_size=2,
        publish_seconds=0.0,
        dense_gate=look,
    )

    assert stages == [
        "lexical only, dense 0%",
        "lexical only, dense 28%",
        "lexical only, dense 57%",
        "lexical only, dense 85%",
    ]
    assert dense_seen[1] == {
        "/docs/app/api-reference/file-conventions/route",
        "/docs/app/api-reference/functions/revalidate-path",
    }
    assert dense_seen[2] - dense_seen[1] == {
        "/docs/app/getting-started/install",
        "/docs/app/getting-started/project",
    }


def test_the_docs_order_puts_api_reference_first_then_the_numbered_navigation() -> None:
    ordered = [s.url_path for s in value_order(docs_tree_corpus(VERSION))]

    assert ordered == [
        "/docs/app/api-reference/file-conventions/route",
        "/docs/app/api-reference/functions/revalidate-path",
        "/docs/app/getting-started/install",
        "/docs/app/getting-started/project",
        "/docs/app/guides/caching",
        "/docs/pages/api-reference/next-config",
        "/docs/pages/guides/forms",
    ]


def test_stopping_the_dense_pass_keeps_the_version_searchable_and_the_rerun_finishes_it(
    index: DocsIndex, embedder: LexicalHashingTestEmbedder
) -> None:
    progress: list[IndexProgress] = []
    batches = 0

    def stop_after_two_dense_batches() -> bool:
        return batches >= 2

    def count() -> None:
        nonlocal batches
        batches += 1

    with pytest.raises(IndexInterrupted, match=r"searchable lexically.*raggin-lsp index 16\.4\.6"):
        index.index_version(
            VERSION,
            docs_tree_corpus(VERSION),
            embedder,
            batch_size=2,
            publish_seconds=0.0,
            should_stop=stop_after_two_dense_batches,
            dense_gate=count,
            progress=progress.append,
        )
    assert _stage(index) == "lexical only, dense 57%"
    assert index.versions() == []
    (stats,) = index.stats()  # what `raggin-lsp stats` prints
    assert stats.stages == {VERSION: "lexical only, dense 57%"}
    assert search(index, embedder, "create next app", VERSION, top_k=1)[0].url_path == (
        "/docs/app/getting-started/install"
    )
    assert [p.phase for p in progress][:2] == ["lexical", "lexical"]
    assert progress[-1].phase == "dense"
    assert progress[-1].searchable

    sparse_before, dense_before = len(embedder.sparse_texts), len(embedder.embedded_texts)
    report = index.index_version(VERSION, docs_tree_corpus(VERSION), embedder)

    assert (report.embedded, report.reused) == (3, 4)
    assert len(embedder.sparse_texts) == sparse_before  # the lexical pass was not redone
    assert len(embedder.embedded_texts) - dense_before == 3
    assert _stage(index) == "hybrid"


def test_sections_shared_with_a_complete_version_keep_their_vectors(
    index: DocsIndex, embedder: LexicalHashingTestEmbedder
) -> None:
    index.index_version("16.2.0", corpus("16.2.0"), embedder)
    before = len(embedder.embedded_texts)

    report = index.index_version(VERSION, corpus(VERSION), embedder)

    assert (report.embedded, report.reused) == (0, 6)
    assert len(embedder.embedded_texts) == before
    assert index.versions() == ["16.2.0", VERSION]

"""Qdrant Edge (the embedded default) and a Qdrant server answer the same queries alike.

qdrant-client's local mode stands in for the server. Both indexes hold the same points;
every fusion and single-vector ranking must give the same top 10 with the same scores.
"""

import random
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient

from raggin_lsp.corpus.model import Section
from raggin_lsp.embed.base import Embedding, SparseVector
from raggin_lsp.store import DocsIndex, StoreSettings
from raggin_lsp.store.points import FusionMethod, Hit, QueryVector
from raggin_lsp.store.schema import SPARSE, TEXT
from tests.unit.store_doubles import HashingTestEmbedder, section

WORDS = tuple(
    [
        "cache",
        "revalidate",
        "route",
        "group",
        "layout",
        "page",
        "server",
        "client",
        "component",
        "fetch",
        "data",
        "middleware",
        "proxy",
        "image",
        "font",
        "metadata",
        "redirect",
        "cookie",
        "header",
        "stream",
        "suspense",
        "action",
        "form",
        "build",
        "deploy",
        "static",
        "export",
        "dynamic",
        "params",
        "segment",
        "loading",
        "error",
    ]
)
QUERIES = (
    "revalidate cached data for a route",
    "server component fetch with cookies",
    "static export of dynamic params",
    "image and font loading in the layout",
    "redirect from proxy when a header is missing",
)


class UntiedEmbedder(HashingTestEmbedder):
    """The hashing embedder with a small, text-seeded jitter on every value.

    Its plain vectors give many exact ties (term counts over a small vocabulary), and two
    engines may order tied candidates differently; parity is about scores, not tie-breaks.
    """

    def _embed(self, text: str) -> Embedding:
        plain = super()._embed(text)
        rng = np.random.default_rng(zlib.crc32(text.encode("utf-8")))
        dense = plain.dense + rng.normal(0, 0.01, plain.dense.shape).astype(np.float32)
        values = tuple(v * (1 + rng.uniform(0, 0.05)) for v in plain.sparse.values)
        return Embedding(
            dense=dense / np.linalg.norm(dense),
            sparse=SparseVector(indices=plain.sparse.indices, values=values),
        )


def _corpus(version: str, count: int = 240) -> list[Section]:
    rng = random.Random(7)
    sections = []
    for number in range(count):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 30)))
        router = ("app", "pages", "architecture")[number % 3]
        sections.append(
            section(version, f"page-{number // 4}", f"part {number}", words, router=router)
        )
    return sections


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[DocsIndex, DocsIndex]]:
    embedder = UntiedEmbedder()
    folder: Path = tmp_path_factory.mktemp("edge")
    edge = DocsIndex.open(StoreSettings(path=folder), embedder.spec)
    server = DocsIndex.open(StoreSettings(), embedder.spec, client=QdrantClient(":memory:"))
    for index in (edge, server):
        index.index_version("16.2.0", _corpus("16.2.0"), embedder, batch_size=64)
        index.index_version("16.4.6", _corpus("16.4.6")[:200], embedder, batch_size=64)
    yield edge, server
    edge.close()
    server.close()


def _queries(text: str) -> dict[str, QueryVector]:
    embedding = UntiedEmbedder().embed_query(text)
    return {SPARSE: embedding.sparse, TEXT: embedding.dense}


def _assert_same(edge: list[Hit], server: list[Hit]) -> None:
    assert len(edge) == len(server) == 10
    edge_scores = [round(hit.score, 4) for hit in edge]
    assert edge_scores == pytest.approx([hit.score for hit in server], abs=1e-4)
    # Ties may come in either order; everything else must be in the same order.
    for position, (mine, theirs) in enumerate(zip(edge, server, strict=True)):
        if mine.id != theirs.id:
            tied = [hit.id for hit in server if abs(hit.score - mine.score) < 1e-5]
            assert mine.id in tied, f"position {position}: {mine} vs {theirs}"


@pytest.mark.parametrize("method", ["rrf", "dbsf"])
@pytest.mark.parametrize("routers", [None, ("app", "architecture")], ids=["all", "app"])
@pytest.mark.parametrize("text", QUERIES)
def test_fusion_gives_the_same_top_10(
    pair: tuple[DocsIndex, DocsIndex],
    method: FusionMethod,
    routers: tuple[str, ...] | None,
    text: str,
) -> None:
    edge, server = pair
    args = (method, _queries(text), "16.4.6", routers, 10, 40)
    _assert_same(edge.fuse(*args), server.fuse(*args))


@pytest.mark.parametrize("text", QUERIES)
def test_weighted_rrf_gives_the_same_top_10(pair: tuple[DocsIndex, DocsIndex], text: str) -> None:
    edge, server = pair
    args = ("rrf", _queries(text), "16.2.0", None, 10, 40)
    _assert_same(edge.fuse(*args, weights=[3.0, 1.0]), server.fuse(*args, weights=[3.0, 1.0]))
    assert edge.fuse(*args, weights=[3.0, 1.0]) != edge.fuse(*args)  # the weights matter


@pytest.mark.parametrize("name", [SPARSE, TEXT])
@pytest.mark.parametrize("text", QUERIES)
def test_single_vector_ranking_is_the_same(
    pair: tuple[DocsIndex, DocsIndex], name: str, text: str
) -> None:
    edge, server = pair
    query = _queries(text)[name]
    _assert_same(
        edge.rank(name, query, "16.4.6", None, 10), server.rank(name, query, "16.4.6", None, 10)
    )

"""The embedded index searches numpy arrays, a server runs Qdrant's Query API: a user must
get the same ranking and the same scores from both."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from raggin_lsp.corpus.model import Section
from raggin_lsp.retrieve.search import search
from raggin_lsp.retrieve.strategies import STRATEGIES
from raggin_lsp.store import DocsIndex, StoreSettings
from raggin_lsp.store.engine import Hit, dbsf, rrf
from tests.unit.store_doubles import HashingTestEmbedder, corpus, section


def _distinct_counts(n: int) -> str:
    """Word counts that differ between sections, so no two score exactly alike (ties
    may legitimately come back in any order and would make the comparison flaky)."""
    counts = {"cache": n + 1, "data": (7 * n) % 31 + 1, "request": (11 * n) % 31 + 1}
    counts["fetch"] = 30 - n
    return " ".join(" ".join([word] * count) for word, count in counts.items())


@pytest.fixture(scope="module")
def embedder() -> HashingTestEmbedder:
    return HashingTestEmbedder()


def _sections() -> list[Section]:
    extra = [section("16.4.6", "caching", f"Part {n}", _distinct_counts(n)) for n in range(30)]
    return corpus("16.2.0") + corpus("16.4.6") + extra


@pytest.fixture(scope="module")
def both(
    embedder: HashingTestEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[DocsIndex, DocsIndex]]:
    folder: Path = tmp_path_factory.mktemp("engines") / "qdrant"
    memory = DocsIndex.open(StoreSettings(path=folder), embedder.spec)
    qdrant = DocsIndex.open(StoreSettings(), embedder.spec, client=QdrantClient(":memory:"))
    for index in (memory, qdrant):
        for version in ("16.2.0", "16.4.6"):
            index.index_version(version, [s for s in _sections() if s.version == version], embedder)
    assert memory.embedded
    assert not qdrant.embedded
    yield memory, qdrant
    memory.close()
    qdrant.close()


@pytest.mark.parametrize("fusion", STRATEGIES)
@pytest.mark.parametrize(
    ("question", "router", "code"),
    [
        pytest.param("cache data request", None, None, id="many-close-scores"),
        pytest.param("opt out of caching fetch", "app", "fetch(url)", id="app-with-code"),
        pytest.param("getServerSideProps request", "pages", None, id="pages"),
    ],
)
def test_embedded_and_server_engines_agree(
    both: tuple[DocsIndex, DocsIndex],
    embedder: HashingTestEmbedder,
    fusion: str,
    question: str,
    router: str | None,
    code: str | None,
) -> None:
    memory, qdrant = both
    kwargs = {"router": router, "code": code, "top_k": 8, "fusion": fusion}
    mine = search(memory, embedder, question, "16.4.6", **kwargs)  # type: ignore[arg-type]
    theirs = search(qdrant, embedder, question, "16.4.6", **kwargs)  # type: ignore[arg-type]

    assert [r.score for r in mine] == pytest.approx([r.score for r in theirs], rel=1e-4)
    # Equal scores may come in either order; distinct scores must come in the same order.
    assert sorted((round(r.score, 4), r.url) for r in mine) == sorted(
        (round(r.score, 4), r.url) for r in theirs
    )
    for a in mine:
        b = next(r for r in theirs if r.url == a.url)
        assert a.scores == pytest.approx(b.scores, rel=1e-4)


def _hits(*pairs: tuple[str, float]) -> list[Hit]:
    return [Hit(pid, score, {}) for pid, score in pairs]


@pytest.mark.parametrize(
    ("lists", "expected"),
    [
        pytest.param(
            [[("a", 9), ("b", 5)], [("b", 0.9), ("a", 0.1)]], ["a", "b"], id="tie-keeps-first"
        ),
        pytest.param(
            [[("a", 9), ("b", 5), ("c", 1)], [("c", 0.9), ("b", 0.8)]],
            ["c", "b", "a"],
            id="rank-sum-wins",
        ),
    ],
)
def test_rrf_matches_qdrant_ranks(
    lists: list[list[tuple[str, float]]], expected: list[str]
) -> None:
    assert [hit.id for hit in rrf([_hits(*hits) for hits in lists])] == expected


def test_dbsf_of_a_single_hit_is_one_half() -> None:
    assert [hit.score for hit in dbsf([_hits(("a", 3.0))])] == [0.5]

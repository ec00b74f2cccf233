"""Hybrid search as the language server and CLI see it: filters, links, strategies."""

from collections.abc import Iterator
from functools import partial

import pytest
from qdrant_client import QdrantClient

from raggin_lsp.retrieve.search import search as search_with_stages
from raggin_lsp.retrieve.stages import NO_STAGES
from raggin_lsp.retrieve.strategies import STRATEGIES
from raggin_lsp.store import DocsIndex, StoreSettings
from tests.unit.store_doubles import HashingTestEmbedder, corpus, section

# These tests are about hybrid search and fusion themselves: no retrieval stage on top.
search = partial(search_with_stages, stages=NO_STAGES)

QUESTION = "router page route docs data request cache"


@pytest.fixture
def embedder() -> HashingTestEmbedder:
    return HashingTestEmbedder()


@pytest.fixture
def index(embedder: HashingTestEmbedder) -> Iterator[DocsIndex]:
    with DocsIndex.open(StoreSettings(), embedder.spec, client=QdrantClient(":memory:")) as idx:
        idx.index_version("16.2.0", corpus("16.2.0"), embedder)
        yield idx


@pytest.mark.parametrize(
    ("router", "expected"),
    [
        pytest.param("app", {"app", "architecture", "community"}, id="app-plus-shared"),
        pytest.param("pages", {"pages", "architecture", "community"}, id="pages-plus-shared"),
        pytest.param("architecture", {"architecture"}, id="architecture-alone"),
        pytest.param(None, {"app", "pages", "architecture", "community"}, id="no-filter"),
    ],
)
@pytest.mark.parametrize("fusion", STRATEGIES)
def test_router_filter(
    index: DocsIndex,
    embedder: HashingTestEmbedder,
    router: str | None,
    expected: set[str],
    fusion: str,
) -> None:
    results = search(
        index,
        embedder,
        QUESTION,
        "16.2.0",
        router=router,
        top_k=20,
        fusion=fusion,  # type: ignore[arg-type]
    )
    assert {r.router for r in results} == expected


def test_version_filter_only_returns_sections_of_that_version(
    index: DocsIndex, embedder: HashingTestEmbedder
) -> None:
    extra = section("16.4.6", "cache-components", "Overview", "use cache directive caches a route")
    newer = [*corpus("16.4.6"), extra]
    index.index_version("16.4.6", newer, embedder)

    old = search(index, embedder, "use cache directive", "16.2.0", top_k=20)
    new = search(index, embedder, "use cache directive", "16.4.6", top_k=20)

    assert "/docs/app/cache-components" not in {r.url_path for r in old}
    assert new[0].url_path == "/docs/app/cache-components"
    assert {r.version for r in old} == {"16.2.0"}


def test_one_per_page_keeps_the_best_section_of_each_page(
    index: DocsIndex, embedder: HashingTestEmbedder
) -> None:
    question = "cached data caching opt out revalidate"
    every = search(index, embedder, question, "16.2.0", top_k=10)
    per_page = search(index, embedder, question, "16.2.0", top_k=10, one_per_page=True)

    assert [r.url_path for r in every].count("/docs/app/caching") == 2
    paths = [r.url_path for r in per_page]
    assert len(paths) == len(set(paths))
    best_caching = next(r for r in every if r.url_path == "/docs/app/caching")
    assert next(r for r in per_page if r.url_path == "/docs/app/caching").url == best_caching.url


@pytest.mark.parametrize(
    ("version", "expected_url"),
    [
        pytest.param(
            "16.2.0", "https://nextjs.org/docs/app/route-groups#convention", id="latest-major"
        ),
        pytest.param(
            "15.5.0", "https://nextjs.org/docs/15/app/route-groups#convention", id="older-major"
        ),
    ],
)
def test_links_point_at_the_docs_of_the_major_release(
    index: DocsIndex, embedder: HashingTestEmbedder, version: str, expected_url: str
) -> None:
    index.index_version("15.5.0", corpus("15.5.0"), embedder)

    hit = search(index, embedder, "route group parentheses folder", version, top_k=1)[0]

    assert hit.url == expected_url
    assert hit.heading_path == ("Route Groups", "Convention")
    assert hit.version == version


def test_code_snippet_adds_the_code_modality(
    index: DocsIndex, embedder: HashingTestEmbedder
) -> None:
    plain = search(index, embedder, "fetch data on each request", "16.2.0", top_k=3)
    with_code = search(
        index,
        embedder,
        "fetch data on each request",
        "16.2.0",
        code="export async function getServerSideProps() { return { props: {} } }",
        top_k=3,
    )

    assert all("code" not in r.scores for r in plain)
    assert with_code[0].url_path == "/docs/pages/get-server-side-props"
    assert with_code[0].scores["code"] == pytest.approx(1.0, abs=1e-5)
    assert with_code[0].code[0].code.startswith("export async function getServerSideProps")


@pytest.mark.parametrize(
    ("fusion", "modalities"),
    [
        pytest.param("sparse", {"sparse"}, id="sparse-only"),
        pytest.param("dense", {"text"}, id="dense-only"),
        pytest.param("weighted", {"sparse", "text"}, id="weighted-both"),
        pytest.param("rrf", {"sparse", "text"}, id="rrf-both"),
    ],
)
def test_each_strategy_reports_the_scores_it_used(
    index: DocsIndex, embedder: HashingTestEmbedder, fusion: str, modalities: set[str]
) -> None:
    hit = search(index, embedder, "revalidatePath purges cached data", "16.2.0", fusion=fusion)[0]  # type: ignore[arg-type]

    assert "revalidatePath" in hit.text
    assert set(hit.scores) == modalities


def test_sparse_search_for_unknown_words_finds_nothing(
    index: DocsIndex, embedder: HashingTestEmbedder
) -> None:
    assert search(index, embedder, "zzzqqq xxyyzz", "16.2.0", fusion="sparse") == []


def test_unknown_strategy_is_refused(index: DocsIndex, embedder: HashingTestEmbedder) -> None:
    with pytest.raises(ValueError, match="unknown fusion 'max'"):
        search(index, embedder, "caching", "16.2.0", fusion="max")  # type: ignore[arg-type]


def test_results_serialise_for_the_client(index: DocsIndex, embedder: HashingTestEmbedder) -> None:
    hit = search(index, embedder, "opt out of caching", "16.2.0", code="fetch(url)", top_k=1)[0]
    data = hit.to_json()

    assert data["url"] == "https://nextjs.org/docs/app/caching#opting-out"
    assert data["heading"] == "Caching > Opting out"
    assert data["code"][0]["code"] == "fetch(url, { cache: 'no-store' })"
    assert set(data["scores"]) == {"sparse", "text", "code"}


def test_reindexing_a_version_drops_sections_it_no_longer_has(
    index: DocsIndex, embedder: HashingTestEmbedder
) -> None:
    """A re-parse (new parser, fixed docs) must not leave stale sections searchable."""
    trimmed = [s for s in corpus("16.2.0") if s.url_path != "/docs/app/route-groups"]

    report = index.index_version("16.2.0", trimmed, embedder)

    assert (report.embedded, report.reused) == (0, 5)
    paths = {r.url_path for r in search(index, embedder, "route group", "16.2.0", top_k=20)}
    assert "/docs/app/route-groups" not in paths
    assert index.stats()[0].points == 5

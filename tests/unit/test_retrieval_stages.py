"""Each retrieval stage changes what a user sees, in the direction it claims, and can be
turned off (the hashing embedder stands in for a model; the stages do not care)."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from raggin_lsp.corpus.apis import ApiCatalog, Deprecation, Symbol
from raggin_lsp.corpus.model import Section
from raggin_lsp.retrieve.docsmap import DocsMap, build_docs_map
from raggin_lsp.retrieve.model import SearchResult
from raggin_lsp.retrieve.search import collapse_twins, search
from raggin_lsp.retrieve.stages import (
    ALL_STAGES,
    NO_STAGES,
    Stages,
    StageWeights,
    parse_stage_settings,
)
from raggin_lsp.store import DocsIndex, StoreSettings
from tests.unit.store_doubles import HashingTestEmbedder

VERSION = "16.4.6"


def _doc(page: str, title: str, text: str, heading: str = "", router: str = "app") -> Section:
    return Section(
        version=VERSION,
        source_path=f"{router}/{page}.md",
        url_path=f"/docs/{router}/{page}",
        anchor=heading.lower().replace(" ", "-"),
        heading_path=(title, heading) if heading else (title,),
        text=text,
        router=router,  # type: ignore[arg-type]
    )


def _docs() -> list[Section]:
    hub_text = (
        "glossary of caching revalidate data revalidatePath revalidateTag cacheTag "
        "cacheLife proxy generateMetadata cookies headers redirect notFound"
    )
    api = "api-reference/functions"
    return [
        _doc(f"{api}/revalidatePath", "revalidatePath", "purge the cache of a path"),
        _doc(f"{api}/revalidateTag", "revalidateTag", "purge tagged entries"),
        _doc(f"{api}/cacheTag", "cacheTag", "tag cache entries"),
        _doc(f"{api}/cacheLife", "cacheLife", "cache lifetime"),
        _doc(f"{api}/generateMetadata", "generateMetadata", "page metadata"),
        _doc(f"{api}/cookies", "cookies", "read cookies"),
        _doc(f"{api}/headers", "headers", "read headers"),
        _doc(f"{api}/redirect", "redirect", "redirect users"),
        _doc(f"{api}/notFound", "notFound", "show a 404"),
        _doc("api-reference/file-conventions/proxy", "proxy.js", "run code before a request"),
        _doc(
            "api-reference/file-conventions/proxy",
            "proxy.js",
            "| `v16.0.0` | Middleware is deprecated and renamed to Proxy |",
            heading="Version History",
        ),
        _doc("glossary", "Glossary", hub_text),
        _doc(
            "guides/caching",
            "Caching",
            "revalidate cached data after a mutation in a server action with revalidatePath, "
            "redirect users without a session",
        ),
        _doc("guides/caching", "Caching", "revalidate data in the pages router", router="pages"),
        _doc(
            "guides/forms",
            "Forms",
            "submit a form to a server action, save the entry, then refresh the list with "
            "[revalidatePath](/docs/app/api-reference/functions/revalidatePath#usage)",
        ),
    ]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocsIndex]:
    embedder = HashingTestEmbedder()
    folder: Path = tmp_path_factory.mktemp("stages")
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as opened:
        opened.index_version(VERSION, _docs(), embedder)
        yield opened


def _pages(index: DocsIndex, question: str, stages: Stages, **kwargs: object) -> list[str]:
    results = search(
        index,
        HashingTestEmbedder(),
        question,
        VERSION,
        top_k=5,
        one_per_page=True,
        stages=stages,
        **kwargs,  # type: ignore[arg-type]
    )
    return [r.url_path.removeprefix("/docs/") for r in results]


def test_a_named_api_lifts_its_reference_page(index: DocsIndex) -> None:
    question = "how do i revalidate cached data after a mutation, revalidatePath?"
    page = "app/api-reference/functions/revalidatePath"
    without = _pages(index, question, ALL_STAGES.with_stage("api_routing", False))
    with_it = _pages(index, question, ALL_STAGES)
    assert page in with_it
    assert with_it.index(page) < (without.index(page) if page in without else len(without))


def test_an_old_name_routes_to_the_page_that_replaced_it(index: DocsIndex) -> None:
    # What the version's API catalog reads from the proxy page's Version History row.
    proxy = "/docs/app/api-reference/file-conventions/proxy"
    renamed = Deprecation(
        Symbol("file", "middleware"),
        "renamed",
        "16.0.0",
        "Middleware is deprecated and renamed to Proxy",
        proxy,
        Symbol("file", "proxy"),
        proxy,
    )
    catalog = ApiCatalog(VERSION, {}, [renamed])
    docs_map = build_docs_map(VERSION, index.payloads_of(VERSION), catalog)
    question = "my `middleware.ts` should redirect users that have no session"
    on = _pages(index, question, ALL_STAGES, docs_map=docs_map)
    assert on[0] == proxy.removeprefix("/docs/")
    off = ALL_STAGES.with_stage("old_names", False).with_stage("api_routing", False)
    assert _pages(index, question, off, docs_map=docs_map)[0] != proxy.removeprefix("/docs/")


def test_the_reference_page_a_matching_guide_links_to_is_lifted(index: DocsIndex) -> None:
    question = "submit a form to a server action and save the entry"
    page = "app/api-reference/functions/revalidatePath"
    off = ALL_STAGES.with_stage("linked_reference", False)
    without = _pages(index, question, off)
    with_it = _pages(index, question, ALL_STAGES)
    assert "app/guides/forms" in with_it
    assert page in with_it
    assert with_it.index(page) < (without.index(page) if page in without else len(without))
    results = search(index, HashingTestEmbedder(), question, VERSION, top_k=5, stages=ALL_STAGES)
    cited = next(r for r in results if r.url_path.endswith("functions/revalidatePath"))
    assert cited.scores["cited"] > 0


def test_the_page_that_mentions_every_api_is_demoted(index: DocsIndex) -> None:
    question = "caching revalidate data glossary"
    plain = _pages(index, question, NO_STAGES)
    only_hub = Stages(hub_demotion=True, **_off_except("hub_demotion"))
    demoted = _pages(index, question, only_hub, weights=StageWeights(hub_penalty=0.9))
    assert plain[0] == "app/glossary"
    assert demoted[0] != "app/glossary"


def _off_except(name: str) -> dict[str, bool]:
    return {stage: False for stage in Stages.names() if stage != name}


def test_twins_take_one_slot_and_the_implied_router_wins(index: DocsIndex) -> None:
    question = "revalidate data pages router getStaticProps"
    results = search(
        index,
        HashingTestEmbedder(),
        question,
        VERSION,
        top_k=5,
        one_per_page=True,
        stages=ALL_STAGES,
    )
    caching = [r for r in results if r.url_path.endswith("guides/caching")]
    assert len(caching) == 1
    assert caching[0].router == "pages"
    assert caching[0].also == ("https://nextjs.org/docs/app/guides/caching",)


def _result(page: str, anchor: str, router: str) -> SearchResult:
    path = f"/docs/{router}/{page}"
    return SearchResult(
        url=f"https://nextjs.org{path}#{anchor}",
        url_path=path,
        anchor=anchor,
        version=VERSION,
        title=page,
        heading_path=(page, anchor),
        text="",
        code=(),
        router=router,
        tag="docs",
        score=1.0,
    )


def test_a_twin_pair_keeps_the_preferred_page_with_its_sections_in_the_best_slot() -> None:
    app, pages = "/docs/app/guides/caching", "/docs/pages/guides/caching"
    docs_map = DocsMap(VERSION, twins={app: pages, pages: app})
    ranked = [
        _result("guides/caching", "isr", "pages"),
        _result("guides/forms", "actions", "app"),
        _result("guides/caching", "revalidate", "app"),
        _result("guides/caching", "fetch", "pages"),
        _result("guides/caching", "tags", "app"),
    ]
    collapsed = collapse_twins(ranked, docs_map, "app")
    assert [(r.url_path, r.anchor) for r in collapsed] == [
        (app, "revalidate"),  # the App Router page takes the pair's best place
        ("/docs/app/guides/forms", "actions"),
        (app, "tags"),  # its other sections stay; the Pages Router ones are gone
    ]
    assert collapsed[0].also == ("https://nextjs.org/docs/pages/guides/caching",)
    assert collapsed[2].also == ()
    # Nothing preferred: the better ranked page of the pair stays.
    assert collapse_twins(ranked, docs_map, None)[0].url_path == pages


def test_every_stage_reports_its_score_for_explain(index: DocsIndex) -> None:
    question = "how do i revalidate cached data after a mutation, revalidatePath?"
    results = search(index, HashingTestEmbedder(), question, VERSION, top_k=5, stages=ALL_STAGES)
    routed = next(r for r in results if r.url_path.endswith("functions/revalidatePath"))
    assert {"sparse", "text", "fused", "api", "hub", "final"} <= set(routed.scores)
    assert all(result.score == result.scores["final"] for result in results)


def test_stage_settings_parse_and_refuse_unknown_names() -> None:
    stages = parse_stage_settings("api_routing=off,-hub_demotion,+sub_queries")
    assert (stages.api_routing, stages.hub_demotion, stages.sub_queries) == (False, False, True)
    assert parse_stage_settings("rerank=on,hyde=on").rerank
    with pytest.raises(ValueError, match="Unknown stage 'telepathy'"):
        parse_stage_settings("telepathy=on")

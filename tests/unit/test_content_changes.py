"""Which pages and sections `raggin-lsp diff` reports as changed between two versions
that are both indexed: compared from the stored sections, page outlines left out."""

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from raggin_lsp.changes import api_pages, diff_json
from raggin_lsp.commands.diff import content_lines
from raggin_lsp.content_changes import (
    ContentChanges,
    NotCompared,
    PageChange,
    SectionChange,
    content_changes,
)
from raggin_lsp.corpus.apis import Api, ApiCatalog
from raggin_lsp.corpus.model import Section
from raggin_lsp.corpus.summary import with_page_summaries
from raggin_lsp.retrieve.pages import IndexedPage, pages_from_payloads
from raggin_lsp.store import DocsIndex, StoreSettings
from tests.unit.store_doubles import HashingTestEmbedder, corpus, section

OLD, NEW = "16.3.0", "16.4.0"
CACHING = "/docs/app/caching"


def _newer(sections: list[Section]) -> list[Section]:
    """The docs of ``NEW``: one section reworded, one added, one page gone, one page
    new, one section removed, and one page whose docs file was renumbered only."""
    changed: list[Section] = []
    for old in sections:
        new = replace(old, version=NEW)
        if old.url_path.endswith("route-groups"):
            continue  # the page is removed
        if old.anchor == "revalidating":
            new = replace(new, text="revalidatePath and revalidateTag purge cached data")
        if old.url_path.endswith("contribution-guide"):
            new = replace(new, source_path="05-community/" + old.source_path)
        if old.anchor == "route-announcements":
            new = replace(new, anchor="focus", heading_path=(old.title, "Focus"))
        changed.append(new)
    changed.append(section(NEW, "caching", "Time-based", "revalidate every hour"))
    changed.append(section(NEW, "proxy", "Usage", "run code before a request completes"))
    return changed


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, IndexedPage]]]:
    """Both versions indexed (with their page outlines) in one store, read back as pages."""
    embedder = HashingTestEmbedder()
    folder: Path = tmp_path_factory.mktemp("content-changes")
    older = corpus(OLD)
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as index:
        index.index_version(OLD, with_page_summaries(older), embedder)
        index.index_version(NEW, with_page_summaries(_newer(older)), embedder)
        yield {v: pages_from_payloads(v, index.payloads_of(v)) for v in (OLD, NEW)}


def _diff(
    pages: dict[str, dict[str, IndexedPage]], scope: set[str] | None = None
) -> ContentChanges:
    return content_changes(OLD, NEW, pages[OLD], pages[NEW], scope)


def test_pages_added_removed_and_changed_with_their_sections(
    pages: dict[str, dict[str, IndexedPage]],
) -> None:
    found = _diff(pages)
    assert [(page.change, page.page) for page in found.pages] == [
        ("added", "/docs/app/proxy"),
        ("removed", "/docs/app/route-groups"),
        ("changed", CACHING),
        ("changed", "/docs/architecture/accessibility"),
    ]
    by_page = {page.page: page.sections for page in found.pages}
    assert by_page[CACHING] == (
        SectionChange("revalidating", "Revalidating", "changed"),
        SectionChange("time-based", "Time-based", "added"),
    )
    assert by_page["/docs/architecture/accessibility"] == (
        SectionChange("focus", "Focus", "added"),
        SectionChange("route-announcements", "Route announcements", "removed"),
    )
    assert by_page["/docs/app/proxy"] == ()  # an added page lists no sections
    assert found.pages[0].url == "https://nextjs.org/docs/app/proxy"


def test_a_renumbered_docs_file_and_the_outlines_do_not_count_as_changes(
    pages: dict[str, dict[str, IndexedPage]],
) -> None:
    found = _diff(pages)
    # get-server-side-props, contribution-guide (its file renamed only): the same content.
    assert found.unchanged == 2
    assert all(page.page != "/docs/community/contribution-guide" for page in found.pages)
    headings = [s.heading for page in found.pages for s in page.sections]
    assert "" not in headings  # no outline point shows up as the text before a heading


def test_the_scope_keeps_the_pages_named(pages: dict[str, dict[str, IndexedPage]]) -> None:
    found = _diff(pages, {CACHING, "/docs/pages/caching"})
    assert [page.page for page in found.pages] == [CACHING]
    assert (found.unchanged, found.count("changed")) == (0, 1)
    assert _diff(pages, set()).pages == ()


def test_identical_versions_change_nothing(pages: dict[str, dict[str, IndexedPage]]) -> None:
    found = content_changes(OLD, OLD, pages[OLD], pages[OLD])
    assert found.pages == ()
    assert found.unchanged == len(pages[OLD])


def test_json_and_text_say_the_same(pages: dict[str, dict[str, IndexedPage]]) -> None:
    found = _diff(pages)
    answer = found.to_json()
    assert answer["compared"] is True
    counts = [answer[key] for key in ("pagesAdded", "pagesRemoved", "pagesChanged")]
    assert counts == [1, 1, 2]
    assert answer["pages"][2]["sections"][0] == {
        "anchor": "revalidating",
        "heading": "Revalidating",
        "change": "changed",
    }
    lines = content_lines(found)
    assert "~ /docs/app/caching  (Caching)" in lines
    assert "    + Time-based" in lines
    assert lines[-1].endswith("1 added, 1 removed, 2 changed, 2 unchanged")


def test_a_version_not_indexed_says_what_to_run() -> None:
    missing = NotCompared("16.1.0", "16.2.0", ("16.1.0",), ("raggin-lsp index 16.1.0",))
    assert missing.message == (
        "Comparing the pages' content needs both 16.1.0 and 16.2.0 indexed; 16.1.0 is not. "
        "Run `raggin-lsp index 16.1.0`."
    )
    assert missing.to_json()["compared"] is False
    assert content_lines(missing) == [missing.message]


def test_diff_json_carries_the_content_and_api_pages_include_the_twin() -> None:
    app, pages = (
        "/docs/app/api-reference/functions/cacheLife",
        "/docs/pages/api-reference/functions/cacheLife",
    )
    catalog = ApiCatalog(
        NEW, {app: Api(app, "cacheLife", "functions", "app", names=("cacheLife",), twin=pages)}
    )
    assert api_pages(catalog, "cacheLife") == {app, pages}
    assert api_pages(catalog, "useTelepathy") == set()
    content = ContentChanges(OLD, NEW, (PageChange(app, "cacheLife", "changed", app),), 0)
    answer = diff_json(catalog, OLD, NEW, "cacheLife", content.to_json())
    assert answer["content"]["pages"][0]["page"] == app
    assert "content" not in diff_json(catalog, OLD, NEW)

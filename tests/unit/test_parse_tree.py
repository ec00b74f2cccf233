"""Parsing a small docs tree the way nextjs.org renders it (fixtures/docs/tree)."""

from pathlib import Path

import pytest

from raggin_lsp.corpus.model import Section
from raggin_lsp.corpus.parse import (
    ParsedPage,
    parse_docs_tree,
    parse_page,
    parse_pages,
    title_from_path,
)
from raggin_lsp.errors import RagginError

TREE = Path(__file__).parent.parent / "fixtures" / "docs" / "tree"
APP_ONLY_WORD = "ZEBRA"  # occurs only inside <AppOnly> of the widgets source page
PAGES_ONLY_WORD = "OTTER"  # occurs only inside <PagesOnly> of it


@pytest.fixture(scope="module")
def pages() -> dict[str, ParsedPage]:
    return {page.page.source_path: page for page in parse_pages(TREE, "1.0.0")}


def _text(page: ParsedPage) -> str:
    return "\n".join(section.text for section in page.sections)


def _section(page: ParsedPage, anchor: str) -> Section:
    return next(section for section in page.sections if section.anchor == anchor)


@pytest.mark.parametrize(
    ("source_path", "url_path", "router", "tag"),
    [
        pytest.param("index.md", "/docs", "app", "docs", id="docs-index"),
        pytest.param(
            "01-app/01-guides/01-widgets.mdx",
            "/docs/app/guides/widgets",
            "app",
            "docs",
            id="app-mdx",
        ),
        pytest.param(
            "02-pages/01-guides/widgets.md",
            "/docs/pages/guides/widgets",
            "pages",
            "docs",
            id="pages-stub",
        ),
        pytest.param(
            "errors/widget-missing-export.mdx",
            "/docs/messages/widget-missing-export",
            "app",
            "errors",
            id="error-page",
        ),
    ],
)
def test_pages_get_site_addresses(
    pages: dict[str, ParsedPage], source_path: str, url_path: str, router: str, tag: str
) -> None:
    page = pages[source_path]

    assert (page.page.url_path, page.page.router, page.page.tag) == (url_path, router, tag)
    assert page.sections
    assert {(s.url_path, s.router, s.tag, s.source_path) for s in page.sections} == {
        (url_path, router, tag, source_path)
    }


def test_app_page_drops_pages_only_content(pages: dict[str, ParsedPage]) -> None:
    text = _text(pages["01-app/01-guides/01-widgets.mdx"])

    assert APP_ONLY_WORD in text
    assert PAGES_ONLY_WORD not in text
    assert "in `app/widget.tsx`" in text


def test_source_stub_takes_the_app_page_without_app_only_content(
    pages: dict[str, ParsedPage],
) -> None:
    stub = pages["02-pages/01-guides/widgets.md"]
    text = _text(stub)

    assert PAGES_ONLY_WORD in text
    assert APP_ONLY_WORD not in text
    assert "in `pages/widget.tsx`" in text
    assert "DO NOT EDIT" not in text
    assert stub.page.source == "app/guides/widgets"
    # The stub keeps its own identity, and so does each section.
    assert stub.page.description == "How widgets are built in the Pages Router."
    assert {s.description for s in stub.sections} == {"How widgets are built in the Pages Router."}
    assert [s.anchor for s in stub.sections] == [
        s.anchor for s in pages["01-app/01-guides/01-widgets.mdx"].sections
    ]


def test_stub_with_unknown_source_keeps_its_body_and_warns(pages: dict[str, ParsedPage]) -> None:
    page = pages["02-pages/01-guides/lost-source.md"]

    assert "keeps this sentence" in _text(page)
    assert any("does-not-exist" in warning for warning in page.warnings)


def test_components_leave_readable_text(pages: dict[str, ParsedPage]) -> None:
    section = _section(pages["01-app/01-guides/01-widgets.mdx"], "creating-a-widget")

    assert "**Why a default export?**" in section.text
    assert "Diagram of a widget tree with three nested boxes" in section.text
    for noise in ("<details", "<summary", "<Image", "srcLight", "{/*", "<AppOnly", "<PagesOnly"):
        assert noise not in section.text.replace("return <AppOnly>not a component", "")


def test_switcher_pair_is_kept_as_two_snippets_in_one_section(pages: dict[str, ParsedPage]) -> None:
    section = _section(pages["01-app/01-guides/01-widgets.mdx"], "creating-a-widget")

    assert [(c.language, c.filename, c.switcher, c.highlight) for c in section.code] == [
        ("tsx", "app/widget.tsx", True, "1,3"),
        ("jsx", "app/widget.js", True, None),
    ]
    # A component tag inside a fence is code: kept verbatim, in the text and the snippet.
    assert "return <AppOnly>not a component, just code</AppOnly>" in section.code[0].code
    assert "return <AppOnly>not a component, just code</AppOnly>" in section.text


def test_heading_inside_code_fence_is_not_a_section(pages: dict[str, ParsedPage]) -> None:
    page = pages["01-app/01-guides/01-widgets.mdx"]

    assert all("Not a heading" not in " ".join(s.heading_path) for s in page.sections)
    assert "## Not a heading, only code" in _section(page, "options").text


def test_indented_layout_text_is_prose_not_code(pages: dict[str, ParsedPage]) -> None:
    section = _section(pages["01-app/01-guides/01-widgets.mdx"], "options")

    assert [snippet.filename for snippet in section.code] == ["notes.md"]
    assert "\nLayout wrappers keep their words." in section.text


def test_sections_follow_headings_with_unique_anchors(pages: dict[str, ParsedPage]) -> None:
    page = pages["01-app/01-guides/01-widgets.mdx"]

    assert [(s.anchor, s.heading_path) for s in page.sections] == [
        ("", ("Building widgets",)),
        ("creating-a-widget", ("Building widgets", "Creating a widget")),
        ("options", ("Building widgets", "Options")),
        ("options-1", ("Building widgets", "Options", "Options")),
        ("version-history", ("Building widgets", "Version History")),
    ]
    assert page.page.version_history == (
        {"version": "v2.0.0", "changes": "Widgets got options."},
        {"version": "v1.0.0", "changes": "Widgets introduced."},
    )


def test_split_levels_are_configurable() -> None:
    sections = [
        s
        for s in parse_docs_tree(TREE, "1.0.0", split_levels=(2,))
        if s.url_path == "/docs/app/guides/widgets"
    ]

    assert [s.anchor for s in sections] == ["", "creating-a-widget", "options", "version-history"]
    assert "### Options" in sections[2].text


def test_page_without_title_gets_one(pages: dict[str, ParsedPage]) -> None:
    untitled = pages["01-app/02-untitled-page.md"]
    error = pages["errors/widget-missing-export.mdx"]

    assert untitled.page.title == "Untitled page"
    assert untitled.sections[0].heading_path == ("Untitled page",)
    # Older error pages carry their title as a leading H1 instead of frontmatter.
    assert error.page.title == "Widget is missing a default export"
    assert [s.anchor for s in error.sections] == [
        "why-this-error-occurred",
        "possible-ways-to-fix-it",
    ]


@pytest.mark.parametrize(
    ("source_path", "title"),
    [
        pytest.param("01-app/02-guides/static-exports.md", "Static exports", id="file"),
        pytest.param(
            "01-app/01-getting-started/index.mdx", "Getting started", id="index-takes-folder"
        ),
        pytest.param("errors/no-cache.mdx", "No cache", id="error"),
    ],
)
def test_title_from_path(source_path: str, title: str) -> None:
    assert title_from_path(source_path) == title


def test_unclosed_component_keeps_the_rest_of_the_page(pages: dict[str, ParsedPage]) -> None:
    page = pages["01-app/03-broken.md"]
    text = _text(page)

    for words in (
        "Text before the trouble.",
        "its words survive",
        "still here",
        "Final words of the broken page.",
    ):
        assert words in text
    assert [s.anchor for s in page.sections] == ["", "after-the-unclosed-block"]
    assert len(page.warnings) == 2


def test_related_links_become_site_paths(pages: dict[str, ParsedPage]) -> None:
    assert pages["index.md"].page.related == ("/docs/app/guides/widgets",)


def test_tree_order_is_deterministic_and_nothing_is_empty() -> None:
    first = parse_docs_tree(TREE, "1.0.0")
    second = parse_docs_tree(TREE, "1.0.0")

    assert [s.to_dict() for s in first] == [s.to_dict() for s in second]
    assert [s.source_path for s in first] == sorted(
        (s.source_path for s in first), key=lambda path: (path.startswith("errors/"), path)
    )
    assert all(s.text.strip() or s.code for s in first)


def test_docs_folder_itself_can_be_the_root() -> None:
    assert {s.url_path for s in parse_docs_tree(TREE / "docs", "1.0.0")} >= {
        "/docs",
        "/docs/app/guides/widgets",
    }


def test_tree_without_docs_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(RagginError, match=r"No Next\.js docs found"):
        parse_docs_tree(tmp_path, "1.0.0")


PAGE = "---\ntitle: Caching\n---\n\nIntro words.\n\n## Keys\n\nKeys name entries.\n"


@pytest.mark.parametrize(
    ("other", "same"),
    [
        pytest.param(PAGE, True, id="same-content-other-version"),
        pytest.param(PAGE.replace("name entries", "identify entries"), False, id="changed-text"),
        pytest.param(PAGE.replace("## Keys", "## Cache keys"), False, id="changed-heading"),
    ],
)
def test_content_hash_ignores_only_the_version(other: str, same: bool) -> None:
    old = parse_page(PAGE, "01-app/caching.md", "15.0.0").sections
    new = parse_page(other, "01-app/caching.md", "16.0.0").sections

    assert old[0].content_hash == new[0].content_hash  # the intro did not change
    assert (old[1].content_hash == new[1].content_hash) is same

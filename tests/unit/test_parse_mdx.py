"""MDX cleaning: what a reader of one router's page sees of the components."""

import pytest

from raggin_lsp.corpus.mdx import clean_mdx

SHARED = (
    "Shared.\n\n<AppOnly>\n\nApp words.\n\n</AppOnly>\n\n"
    "<PagesOnly>\n\nPages words.\n\n</PagesOnly>\n"
)


def _words(markdown: str) -> str:
    return " ".join(markdown.split())


@pytest.mark.parametrize(
    ("body", "router", "expected"),
    [
        pytest.param(
            SHARED,
            "app",
            "Shared. App words.",
            id="app-drops-pages-only",
        ),
        pytest.param(
            SHARED,
            "pages",
            "Shared. Pages words.",
            id="pages-drops-app-only",
        ),
        pytest.param(
            "Use <AppOnly>a route handler</AppOnly><PagesOnly>an API route</PagesOnly> here.",
            "pages",
            "Use an API route here.",
            id="inline-wrappers",
        ),
        pytest.param(
            "<AppOnly>\n\nOuter.\n\n<div>\n\nInner kept.\n\n</div>\n\n</AppOnly>\n\nAfter.",
            "pages",
            "After.",
            id="nested-component-inside-dropped-block",
        ),
        pytest.param(
            "<PagesOnly>\n\nOuter.\n\n<AppOnly>\n\nDeep app.\n\n</AppOnly>\n\n"
            "Tail.\n\n</PagesOnly>",
            "pages",
            "Outer. Tail.",
            id="wrapper-nested-in-wrapper",
        ),
        pytest.param(
            "Before.\n\n{/* a note\nfor editors */}\n\nAfter.",
            "app",
            "Before. After.",
            id="multi-line-mdx-comment",
        ),
        pytest.param(
            "Keep.\n<!-- html comment -->\nThis too.",
            "app",
            "Keep. This too.",
            id="html-comment",
        ),
        pytest.param(
            '<Image\n  alt="A chart of build times"\n  src="/x.png"\n  width={100}\n/>',
            "app",
            "A chart of build times",
            id="image-alt-text",
        ),
        pytest.param(
            "<details>\n  <summary>More examples</summary>\n\n- one\n\n</details>",
            "app",
            "**More examples** - one",
            id="details-summary",
        ),
        pytest.param(
            "<Check size={18} />\n\nDone.",
            "app",
            "Done.",
            id="icon-dropped",
        ),
        pytest.param(
            "Mention `<AppOnly>` in code.",
            "pages",
            "Mention `<AppOnly>` in code.",
            id="tag-in-code-span-is-code",
        ),
        pytest.param(
            "```tsx\n<AppOnly>inside a fence</AppOnly>\n{/* not a comment */}\n```\n",
            "pages",
            "```tsx <AppOnly>inside a fence</AppOnly> {/* not a comment */} ```",
            id="tags-in-fence-are-code",
        ),
        pytest.param(
            "<FixCard\n  title=\"Cache it\"\n  snippets={[{ text: '<Content />' }]}\n/>",
            "app",
            "Cache it",
            id="jsx-attribute-with-angle-brackets",
        ),
        pytest.param(
            "a | b <br/> c",
            "app",
            "a | b c",
            id="br-becomes-space",
        ),
    ],
)
def test_clean_mdx_shows_what_the_router_shows(body: str, router: str, expected: str) -> None:
    result = clean_mdx(body, router)  # type: ignore[arg-type]

    assert _words(result.markdown) == expected
    assert result.warnings == ()


@pytest.mark.parametrize(
    ("body", "kept", "warning"),
    [
        pytest.param(
            "Start.\n\n<AppOnly>\n\nNever closed.\n\n## Later heading\n\nEnd.",
            ["Start.", "Never closed.", "## Later heading", "End."],
            "unclosed <AppOnly>",
            id="unclosed-wrapper-keeps-rest",
        ),
        pytest.param(
            "Start.\n\n</PagesOnly>\n\nEnd.",
            ["Start.", "End."],
            "stray </PagesOnly>",
            id="stray-close",
        ),
        pytest.param(
            'Start.\n\n<Image alt="no end"\n\nEnd.',
            ["Start.", "End."],
            "unterminated <Image>",
            id="unterminated-tag",
        ),
        pytest.param(
            "Start.\n\n{/* no end\n\nEnd.",
            ["Start.", "End."],
            "unclosed comment",
            id="unclosed-comment",
        ),
        pytest.param(
            "<AppOnly>\n\n<PagesOnly>\n\nMixed.\n\n</AppOnly>\n\nEnd.",
            ["End."],
            "unclosed <PagesOnly>",
            id="interleaved-wrappers",
        ),
    ],
)
def test_broken_markup_keeps_the_rest_of_the_page(body: str, kept: list[str], warning: str) -> None:
    result = clean_mdx(body, "pages")

    for text in kept:
        assert text in result.markdown
    assert any(warning in message for message in result.warnings), result.warnings


def test_unclosed_wrapper_is_kept_for_both_routers() -> None:
    body = "<PagesOnly>\n\nOnly meant for pages.\n"

    assert "Only meant for pages." in clean_mdx(body, "app").markdown
    assert "Only meant for pages." in clean_mdx(body, "pages").markdown

"""Citations, the answer footer and the extractive answer (pure, no Ollama)."""

import pytest

from raggin_lsp.corpus.model import CodeSnippet
from raggin_lsp.generate import extractive_answer
from raggin_lsp.generate.citations import citations_in, cited_numbers, render_answer
from raggin_lsp.generate.model import Citation
from raggin_lsp.retrieve.model import SearchResult

VERSION = "16.2.0"


def result(
    n: int, heading: tuple[str, ...], text: str = "Some prose.", code: str = ""
) -> SearchResult:
    return SearchResult(
        url=f"https://nextjs.org/docs/app/page-{n}#part",
        url_path=f"/docs/app/page-{n}",
        anchor="part",
        version=VERSION,
        title=heading[0],
        heading_path=heading,
        text=text,
        code=(CodeSnippet("tsx", code, "app/page.tsx"),) if code else (),
        router="app",
        tag="docs",
        score=1.0 / n,
    )


RESULTS = [
    result(1, ("Dynamic Routes", "Convention")),
    result(2, ("redirect", "Parameters")),
    result(3, ("Caching",)),
]


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        pytest.param("Use a folder [1]. Then redirect [2].", [1, 2], id="plain-markers"),
        pytest.param("See [3][1] and again [1].", [1, 3], id="adjacent-and-repeated"),
        pytest.param("Both apply [1, 3].", [1, 3], id="comma-list"),
        pytest.param("Nothing cited here.", [], id="none"),
        pytest.param("Per [7] and [0].", [], id="out-of-range-ignored"),
        pytest.param("Read `params[1]` first.", [], id="inline-code-is-not-a-citation"),
        pytest.param("```ts\nconst x = arr[2]\n```\nSee [3].", [3], id="fenced-code-ignored"),
        pytest.param("Folders like [slug] match [2].", [2], id="route-brackets-ignored"),
    ],
)
def test_cited_numbers(text: str, numbers: list[int]) -> None:
    assert cited_numbers(text, len(RESULTS)) == numbers


def test_cited_sources_map_to_their_urls_and_labels() -> None:
    citations = citations_in("Redirect with [2], cache with [3].", RESULTS)

    assert citations == [
        Citation(2, "https://nextjs.org/docs/app/page-2#part", "redirect — Parameters", VERSION),
        Citation(3, "https://nextjs.org/docs/app/page-3#part", "Caching", VERSION),
    ]


def test_uncited_answer_lists_every_source() -> None:
    assert [c.n for c in citations_in("No markers at all.", RESULTS)] == [1, 2, 3]


def test_footer_states_version_and_lists_sources_as_links() -> None:
    citations = citations_in("Use [1].", [result(1, ("Dynamic Routes", "[slug] folders"))])

    text = render_answer("Use [1].", citations, VERSION)

    assert text.startswith("Use [1].\n\n_Grounded in the Next.js 16.2.0 docs._")
    # Brackets in headings are escaped so the link still renders.
    assert text.rstrip().endswith(
        "- [1] [Dynamic Routes — \\[slug\\] folders](https://nextjs.org/docs/app/page-1#part)"
    )


def test_notice_is_shown_before_the_version_line() -> None:
    text = render_answer("Partial", [], VERSION, notice="The answer was cut off.")

    assert text.index("> **Note:** The answer was cut off.") < text.index("_Grounded in")


def test_extractive_answer_quotes_the_best_sections_with_links() -> None:
    long_prose = "Dynamic segments are filled at request time. " * 30
    results = [
        result(
            1,
            ("Dynamic Routes", "Convention"),
            long_prose,
            code="export default function Page() {}",
        ),
        result(2, ("redirect", "Parameters"), "The `type` parameter defaults to `replace`."),
        result(3, ("Caching",), "Caching is opt-in."),
        result(4, ("Fourth",), "Not shown: only the best three are quoted."),
    ]

    text = extractive_answer("How do dynamic routes work?", results, VERSION)

    assert "Next.js 16.2.0" in text
    assert "**[1] [Dynamic Routes — Convention](https://nextjs.org/docs/app/page-1#part)**" in text
    assert "> Dynamic segments are filled at request time." in text
    assert len(text) < len(long_prose)  # quoted briefly
    assert "export default function Page() {}" in text
    assert "> The `type` parameter defaults to `replace`." in text
    assert "Fourth" not in text
    assert cited_numbers(text, len(results)) == [1, 2, 3]


def test_extractive_answer_without_results_says_nothing_matched_in_that_version() -> None:
    text = extractive_answer("What is a flux capacitor?", [], VERSION)

    assert "No matching sections were found in the Next.js 16.2.0 docs" in text

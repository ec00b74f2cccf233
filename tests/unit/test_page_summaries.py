"""Each page gets one outline point: title, description, lead, headings; searched on its own."""

from pathlib import Path

from raggin_lsp.corpus.model import Section
from raggin_lsp.corpus.summary import (
    LEAD_CHARS,
    PAGE_TAG,
    page_summaries,
    with_page_summaries,
)
from raggin_lsp.retrieve.search import search
from raggin_lsp.retrieve.stages import NO_STAGES, Stages
from raggin_lsp.store import DocsIndex, StoreSettings
from tests.unit.store_doubles import HashingTestEmbedder


def _part(page: str, title: str, heading: str, text: str) -> Section:
    return Section(
        version="16.4.6",
        source_path=f"{page}.md",
        url_path=f"/docs/app/{page}",
        anchor=heading.lower(),
        heading_path=(title, heading),
        text=text,
        description=f"About {title}.",
    )


SECTIONS = [
    _part("api-reference/functions/revalidatePath", "revalidatePath", "Parameters", "a string"),
    _part("api-reference/functions/revalidatePath", "revalidatePath", "Returns", "nothing"),
    _part(
        "guides/forms",
        "Forms",
        "Mutations",
        "after a mutation call revalidatePath to purge cached data of a path on demand",
    ),
]


def test_one_outline_per_page_with_title_description_and_headings() -> None:
    summaries = page_summaries(SECTIONS)
    assert [s.url_path for s in summaries] == [
        "/docs/app/api-reference/functions/revalidatePath",
        "/docs/app/guides/forms",
    ]
    first = summaries[0]
    assert first.tag == PAGE_TAG
    assert first.text == "revalidatePath\nAbout revalidatePath.\nParameters\nReturns"
    assert page_summaries(with_page_summaries(SECTIONS)) == summaries  # never summarised twice


def test_an_outline_carries_the_opening_paragraph_where_the_description_says_little() -> None:
    page = "api-reference/functions/revalidatePath"
    intro = Section(
        version="16.4.6",
        source_path=f"{page}.md",
        url_path=f"/docs/app/{page}",
        anchor="",
        heading_path=("revalidatePath",),
        text=(
            "> **Good to know**: this page is about the App Router.\n\n"
            "```ts\nrevalidatePath('/blog')\n```\n\n"
            "~~~bash\nnpm run build\n~~~\n\n"
            "`revalidatePath` allows you to [invalidate](/docs/app/glossary#revalidation) "
            "cached data on-demand for a specific path. " + "It is long. " * 60
        ),
        description="API Reference for the revalidatePath function.",
    )
    lead = page_summaries([intro, SECTIONS[0]])[0].text.splitlines()[2]
    # The first prose paragraph, links as their text, cut at a word within LEAD_CHARS.
    assert lead.startswith(
        "`revalidatePath` allows you to invalidate cached data on-demand for a specific path."
    )
    assert len(lead) <= LEAD_CHARS
    assert lead.endswith("long.")
    # A page that opens with a heading has no introduction: nothing is taken.
    assert page_summaries(SECTIONS)[0].text.splitlines()[2] == "Parameters"


def test_an_outline_ends_with_the_sentences_other_pages_link_to_it_with() -> None:
    target = "/docs/app/api-reference/functions/permanentRedirect"
    sections = [
        _part("api-reference/functions/permanentRedirect", "permanentRedirect", "Returns", "-"),
        _part(
            "guides/redirecting",
            "Redirecting",
            "Status codes",
            "Redirects use 307 by default. If you prefer to return a 308 (Permanent) redirect, "
            f"use the [`permanentRedirect`]({target}#usage) function instead.\n\n"
            f"- [`permanentRedirect`]({target})\n\n"
            f"```ts\n// [not a link]({target})\n```",
        ),
        _part(
            "api-reference/functions/permanentRedirect",
            "permanentRedirect",
            "Example",
            f"See [this page]({target}) for the details of this page.",
        ),
    ]
    outline = page_summaries(sections)[0]
    assert outline.url_path == target
    # The linking sentence, as plain text; not the bare list item, the code or its own link.
    assert outline.text.splitlines()[-1] == (
        "If you prefer to return a 308 (Permanent) redirect, use the `permanentRedirect` "
        "function instead."
    )
    assert "this page" not in outline.text


def test_outlines_are_not_results_but_lift_the_page_they_describe(tmp_path: Path) -> None:
    embedder = HashingTestEmbedder()
    question = "purge cached data of a path on demand revalidatePath parameters"
    with DocsIndex.open(StoreSettings(path=tmp_path / "index"), embedder.spec) as index:
        index.index_version("16.4.6", with_page_summaries(SECTIONS), embedder)
        plain = search(index, embedder, question, "16.4.6", top_k=5, stages=NO_STAGES)
        lifted = search(
            index,
            embedder,
            question,
            "16.4.6",
            top_k=5,
            stages=Stages(
                page_signal=True, **{n: False for n in Stages.names() if n != "page_signal"}
            ),
        )
    assert all(result.tag != PAGE_TAG for result in [*plain, *lifted])
    assert "page" in lifted[0].scores or "page" in lifted[1].scores

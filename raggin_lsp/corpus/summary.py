"""One summary section per page: title, description, opening paragraph, heading outline and
what links say.

Retrieval scores sections, so a page whose every section is about details can lose to a
page that merely mentions the question's words, while its title and outline name the
topic exactly ("revalidatePath", "Usage", "Revalidating a layout path"). Each page
therefore gets one more stored point, tagged ``page``, whose text is only that outline:
its dense and sparse vectors are the page-level signal, where titles and headings weigh
the whole text (the field weighting body text would otherwise drown).

After the description comes the page's opening paragraph, cut to a few lines: what the
page is about in the docs' own words ("``revalidatePath`` allows you to invalidate cached
data on-demand for a specific path"), where many descriptions only say "API Reference for
the revalidatePath function". Search engines show the same lead as a page's snippet.

The outline ends with the sentences other pages use when they link to the page (anchor
text, as web search uses it): guides describe a reference page in the words of the task
("use ``permanentRedirect`` to redirect with a 308"), words its own outline lacks.
"""

import re
import textwrap
from collections.abc import Iterable

from raggin_lsp.corpus.chunk import paragraphs
from raggin_lsp.corpus.model import Section, Tag
from raggin_lsp.corpus.urls import linked_pages

PAGE_TAG: Tag = "page"
# Sentences from other pages that link to a page, kept in its summary: the first ones in
# docs order, one per linking page, each cut to a line. Chosen on the tune split (3, 8,
# 20 and 40 tried; 20 and 40 tie); shorter sentences (a list item or a table cell that
# only names the page) add nothing the title does not say.
LINK_CONTEXTS = 20
_CONTEXT_CHARS = 240
# The opening paragraph is cut to this many characters, at a word. Chosen on the tune
# split (P@1 16.4.6 / 16.2.0 with no lead: 0.732 / 0.721; 160: 0.718 / 0.726; 300:
# 0.737 / 0.736; 600: 0.732 / 0.731).
LEAD_CHARS = 300
# Blocks that are not the prose of an opening paragraph: tables, quotes ("Good to know"),
# JSX, lists, headings and code (either fence).
_NOT_PROSE = ("|", ">", "<", "-", "*", "#", "```", "~~~")
_MIN_WORDS = 5
_LINK = re.compile(r"\[([^\]]*)\]\([^)\s]*\)")  # any Markdown link: keep its text
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+|\n+")
_FENCE = re.compile(r"```.*?```", re.DOTALL)


def page_summaries(sections: Iterable[Section]) -> list[Section]:
    """One summary per page of ``sections`` (pages in order of first appearance)."""
    by_page: dict[str, list[Section]] = {}
    for section in sections:
        if section.tag != PAGE_TAG:
            by_page.setdefault(section.url_path, []).append(section)
    contexts = _link_contexts(by_page)
    return [_summary(parts, contexts.get(page, [])) for page, parts in by_page.items()]


def with_page_summaries(sections: list[Section]) -> list[Section]:
    return [*sections, *page_summaries(sections)]


def _link_contexts(by_page: dict[str, list[Section]]) -> dict[str, list[str]]:
    """page -> the sentences linking to it from other pages, one per linking page."""
    found: dict[str, dict[str, str]] = {}  # target -> linking page -> sentence
    for page, parts in by_page.items():
        for part in parts:
            prose = _FENCE.sub("\n", part.text)
            for sentence in _SENTENCE_END.split(prose):
                targets = set(linked_pages(sentence)) - {page}
                if not targets:
                    continue
                plain = " ".join(_LINK.sub(r"\1", sentence).replace("|", " ").split())
                if len(plain.split()) < _MIN_WORDS:
                    continue  # a bare list item or table cell naming the page adds nothing
                plain = plain[:_CONTEXT_CHARS]
                for target in targets:
                    found.setdefault(target, {}).setdefault(page, plain)
    return {
        target: list(dict.fromkeys(by_source.values()))[:LINK_CONTEXTS]
        for target, by_source in found.items()
    }


def _summary(parts: list[Section], contexts: list[str]) -> Section:
    first = parts[0]
    headings = list(dict.fromkeys(h for part in parts for h in part.heading_path[1:]))
    title = first.heading_path[0] if first.heading_path else first.url_path
    lines = [title, first.description, _lead(first), *headings, *contexts]
    return Section(
        version=first.version,
        source_path=first.source_path,
        url_path=first.url_path,
        anchor="",
        heading_path=(title,),
        text="\n".join(line for line in lines if line),
        router=first.router,
        tag=PAGE_TAG,
        description=first.description,
    )


def _lead(first: Section) -> str:
    """The first prose paragraph of the page's introduction (before its first heading)."""
    if len(first.heading_path) > 1:
        return ""  # the page opens with a heading: no introduction to take
    for block in paragraphs(first.text):
        if not block.lstrip().startswith(_NOT_PROSE):
            plain = _LINK.sub(r"\1", block)
            return textwrap.shorten(plain, width=LEAD_CHARS, placeholder="")
    return ""

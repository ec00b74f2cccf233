"""One summary section per page: its title, description, heading outline and what links say.

Retrieval scores sections, so a page whose every section is about details can lose to a
page that merely mentions the question's words, while its title and outline name the
topic exactly ("revalidatePath", "Usage", "Revalidating a layout path"). Each page
therefore gets one more stored point, tagged ``page``, whose text is only that outline:
its dense and sparse vectors are the page-level signal, where titles and headings weigh
the whole text (the field weighting body text would otherwise drown).

The outline ends with the sentences other pages use when they link to the page (anchor
text, as web search uses it): guides describe a reference page in the words of the task
("use ``permanentRedirect`` to redirect with a 308"), words its own outline lacks.
"""

import re
from collections.abc import Iterable

from raggin_lsp.corpus.model import Section, Tag
from raggin_lsp.corpus.urls import linked_pages

PAGE_TAG: Tag = "page"
# Sentences from other pages that link to a page, kept in its summary: the first ones in
# docs order, one per linking page, each cut to a line. Chosen on the tune split (3, 8,
# 20 and 40 tried; 20 and 40 tie); shorter sentences (a list item or a table cell that
# only names the page) add nothing the title does not say.
LINK_CONTEXTS = 20
_CONTEXT_CHARS = 240
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
    lines = [title, first.description, *headings, *contexts]
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

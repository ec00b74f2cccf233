"""One summary section per page: its title, description and heading outline.

Retrieval scores sections, so a page whose every section is about details can lose to a
page that merely mentions the question's words, while its title and outline name the
topic exactly ("revalidatePath", "Usage", "Revalidating a layout path"). Each page
therefore gets one more stored point, tagged ``page``, whose text is only that outline:
its dense and sparse vectors are the page-level signal, where titles and headings weigh
the whole text (the field weighting body text would otherwise drown).
"""

from collections.abc import Iterable

from raggin_lsp.corpus.model import Section, Tag

PAGE_TAG: Tag = "page"


def page_summaries(sections: Iterable[Section]) -> list[Section]:
    """One summary per page of ``sections`` (pages in order of first appearance)."""
    by_page: dict[str, list[Section]] = {}
    for section in sections:
        if section.tag != PAGE_TAG:
            by_page.setdefault(section.url_path, []).append(section)
    return [_summary(parts) for parts in by_page.values()]


def with_page_summaries(sections: list[Section]) -> list[Section]:
    return [*sections, *page_summaries(sections)]


def _summary(parts: list[Section]) -> Section:
    first = parts[0]
    headings = list(dict.fromkeys(h for part in parts for h in part.heading_path[1:]))
    title = first.heading_path[0] if first.heading_path else first.url_path
    lines = [title, first.description, *headings]
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

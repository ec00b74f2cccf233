"""Whole docs pages put back together from the sections the index stores.

A page is stored as its sections plus one outline point (tag ``page``, see
:mod:`raggin_lsp.corpus.summary`) whose text lists the title, the description and every
heading in document order. That outline orders the sections again, so a page reads as
it was indexed without the docs files at hand (an imported index has none).
:func:`url_path_of` finds the page an agent or a user names, however they name it.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from raggin_lsp.corpus.model import NEXTJS_SITE, Section
from raggin_lsp.corpus.summary import PAGE_TAG
from raggin_lsp.corpus.urls import url_path_for
from raggin_lsp.store.schema import section_from_payload


@dataclass(frozen=True)
class IndexedPage:
    """One page of one version as the index holds it, sections in document order."""

    version: str
    url_path: str
    title: str
    description: str
    router: str
    source_path: str
    sections: tuple[Section, ...]

    @property
    def headings(self) -> list[str]:
        """The page's section headings (``H2 > H3``), each once, in order."""
        named = (" > ".join(section.heading_path[1:]) for section in self.sections)
        return list(dict.fromkeys(heading for heading in named if heading))

    def markdown(self) -> str:
        """The page as Markdown: title, description, then each section under its heading."""
        lines = [f"# {self.title}", ""]
        if self.description:
            lines += [f"> {self.description}", ""]
        shown: tuple[str, ...] = self.sections[0].heading_path[:1] if self.sections else ()
        for section in self.sections:
            path = section.heading_path
            for depth in range(1, len(path)):  # headings not shown yet, outermost first
                if path[: depth + 1] != shown[: depth + 1]:
                    lines += [f"{'#' * (depth + 1)} {path[depth]}", ""]
            shown = path
            lines += [section.text.strip(), ""]
        return "\n".join(lines).rstrip() + "\n"


def url_path_of(address: str) -> str:
    """The site path a docs address names, the inverse of :func:`site_url`.

    Accepts a nextjs.org address (``https://nextjs.org/docs/15/app/...#anchor``, the major
    prefix dropped), a site path (``/docs/app/...``, ``docs/app/...`` or ``app/...``) or a
    docs file path (``01-app/03-api-reference/04-functions/revalidatePath.md``).
    """
    text = address.strip().split("#", 1)[0].split("?", 1)[0]
    if text.startswith(NEXTJS_SITE):
        text = text[len(NEXTJS_SITE) :]
    if text.endswith((".md", ".mdx")):
        return url_path_for(text.removeprefix("/").removeprefix("docs/"))
    parts = [part for part in text.split("/") if part]
    if parts[:1] == ["docs"]:
        parts = parts[1:]
    if parts and parts[0].isdigit():  # /docs/15/...: an older major's docs
        parts = parts[1:]
    return "/".join(["/docs", *parts]) if parts else "/docs"


def pages_from_payloads(
    version: str, payloads: Iterable[Mapping[str, Any]]
) -> dict[str, IndexedPage]:
    """Every page of ``version`` by site path, from the payloads of its stored points."""
    sections: dict[str, list[Section]] = {}
    outlines: dict[str, Section] = {}
    for payload in payloads:
        section = section_from_payload(dict(payload), version)
        if section.tag == PAGE_TAG:
            outlines[section.url_path] = section
        else:
            sections.setdefault(section.url_path, []).append(section)
    return {
        url_path: _page(version, url_path, parts, outlines.get(url_path))
        for url_path, parts in sorted(sections.items())
    }


def _page(
    version: str, url_path: str, parts: list[Section], outline: Section | None
) -> IndexedPage:
    order = outline.text.splitlines()[1:] if outline is not None else []
    position = {line: index for index, line in reversed(list(enumerate(order)))}

    def place(section: Section) -> tuple[tuple[int, ...], int, str]:
        # The outline lists each heading once: a heading's first place stands for it.
        where = tuple(position.get(heading, len(order)) for heading in section.heading_path[1:])
        return where, section.part, section.anchor

    ordered = sorted(parts, key=place)
    first = ordered[0]
    return IndexedPage(
        version=version,
        url_path=url_path,
        title=first.title or url_path,
        description=first.description,
        router=first.router,
        source_path=first.source_path,
        sections=tuple(ordered),
    )

"""Which docs pages and sections changed between two indexed versions, from the index alone.

The index stores every section of every indexed version with its content (a section
that did not change between two releases is one content-addressed point listing both,
see :mod:`raggin_lsp.store.schema`), so two versions' pages as the index holds them
(:func:`raggin_lsp.retrieve.pages.pages_from_payloads`) are compared heading anchor by
heading anchor, without embedding or fetching anything. A page only V2 has was added,
one only V1 has was removed, and a page both have changed when one of its sections was
added, removed or changed (a long section split into parts changed when any part did).
A section is compared by what a reader sees, its headings, text and code, not by its
stored content hash, which also covers the docs file's name and the page's description:
a renumbered docs file or a reworded description does not mark every section changed.
Page outlines (tag ``page``) are derived from the sections and never counted.

Pure: takes the pages of both versions, returns data. :meth:`Assistant.content_changes
<raggin_lsp.assistant.Assistant.content_changes>` reads them from the index.
"""

from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from raggin_lsp.corpus.model import CodeSnippet
from raggin_lsp.corpus.urls import site_url
from raggin_lsp.retrieve.pages import IndexedPage

ChangeKind = Literal["added", "removed", "changed"]


@dataclass(frozen=True)
class SectionChange:
    """One heading of a page whose content differs between the two versions."""

    anchor: str  # "" for the text before the page's first heading
    heading: str  # "H2 > H3"; "" for the text before the first heading
    change: ChangeKind


@dataclass(frozen=True)
class PageChange:
    """One page added, removed or changed; a changed page lists its changed sections."""

    page: str  # the page's URL path
    title: str
    change: ChangeKind
    url: str  # in the newer version's docs; in the older one's for a removed page
    sections: tuple[SectionChange, ...] = ()


@dataclass(frozen=True)
class ContentChanges:
    """The pages whose content changed from ``since`` to ``until``, page by page."""

    since: str
    until: str
    pages: tuple[PageChange, ...]
    unchanged: int  # pages both versions hold with the same sections

    def count(self, change: ChangeKind) -> int:
        return sum(1 for page in self.pages if page.change == change)

    def to_json(self) -> dict[str, Any]:
        return {
            "compared": True,
            "from": self.since,
            "to": self.until,
            "pagesAdded": self.count("added"),
            "pagesRemoved": self.count("removed"),
            "pagesChanged": self.count("changed"),
            "pagesUnchanged": self.unchanged,
            "pages": [asdict(page) for page in self.pages],
        }


@dataclass(frozen=True)
class NotCompared:
    """Why the content was not compared: a version that is not indexed, and what to run."""

    since: str
    until: str
    missing: tuple[str, ...]
    commands: tuple[str, ...]

    @property
    def message(self) -> str:
        which = " and ".join(self.missing)
        verb = "is" if len(self.missing) == 1 else "are"
        run = " and ".join(f"`{command}`" for command in self.commands)
        return (
            f"Comparing the pages' content needs both {self.since} and {self.until} indexed; "
            f"{which} {verb} not. Run {run}."
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "compared": False,
            "from": self.since,
            "to": self.until,
            "missing": list(self.missing),
            "commands": list(self.commands),
            "message": self.message,
        }


def content_changes(
    since: str,
    until: str,
    old: Mapping[str, IndexedPage],
    new: Mapping[str, IndexedPage],
    pages: Collection[str] | None = None,
) -> ContentChanges:
    """The pages of ``new`` (version ``until``) that differ from those of ``old``
    (version ``since``), both keyed by URL path; only the URL paths in ``pages`` when
    given. Added pages first, then removed ones, then changed ones, each by URL path."""

    def wanted(url_path: str) -> bool:
        return pages is None or url_path in pages

    added = [
        PageChange(path, page.title, "added", site_url(path, until))
        for path, page in sorted(new.items())
        if path not in old and wanted(path)
    ]
    removed = [
        PageChange(path, page.title, "removed", site_url(path, since))
        for path, page in sorted(old.items())
        if path not in new and wanted(path)
    ]
    changed: list[PageChange] = []
    unchanged = 0
    for path in sorted(new.keys() & old.keys()):
        if not wanted(path):
            continue
        sections = section_changes(old[path], new[path])
        if sections:
            page = new[path]
            changed.append(PageChange(path, page.title, "changed", site_url(path, until), sections))
        else:
            unchanged += 1
    return ContentChanges(since, until, (*added, *removed, *changed), unchanged)


def section_changes(old: IndexedPage, new: IndexedPage) -> tuple[SectionChange, ...]:
    """The headings of one page whose sections differ, by anchor: the newer page's in its
    order (added or changed), then those only the older page has (removed)."""
    before, after = _by_anchor(old), _by_anchor(new)
    found = [
        SectionChange(anchor, heading, "added" if anchor not in before else "changed")
        for anchor, (heading, content) in after.items()
        if anchor not in before or before[anchor][1] != content
    ]
    found += [
        SectionChange(anchor, heading, "removed")
        for anchor, (heading, _) in before.items()
        if anchor not in after
    ]
    return tuple(found)


_Content = tuple[tuple[str, ...], str, tuple[CodeSnippet, ...]]


def _by_anchor(page: IndexedPage) -> dict[str, tuple[str, frozenset[_Content]]]:
    """Anchor -> (heading, what a reader sees of each of its parts), in the page's order."""
    parts: dict[str, tuple[str, set[_Content]]] = {}
    for section in page.sections:
        headings = section.heading_path[1:]
        seen = parts.setdefault(section.anchor, (" > ".join(headings), set()))[1]
        seen.add((headings, section.text, section.code))
    return {anchor: (heading, frozenset(seen)) for anchor, (heading, seen) in parts.items()}

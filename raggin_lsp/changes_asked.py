"""Questions that ask what changed between Next.js versions, and the Version History rows
that answer them as numbered sources (rules on the question's words, no LLM).

"What changed in 16.4", "how do I upgrade from 16.2 to 16.4", "what's new since 16.3",
"is unstable_noStore deprecated": such a question gets the history rows of the project
version's API catalog (:func:`raggin_lsp.changes.changes_within`) for the releases it
names, and, when it names APIs the catalog knows, for those APIs only. The rows are
handed to the answer as extra sources, one per API page, whose URLs are the pages'
"Version History" sections, so the answer cites them like any other section.

Which releases a question means:

* two versions: after the older one (all of it, at the precision written: ``16.2``
  means every 16.2.x) up to the newer one;
* one version after "since", "from" or "upgrade from": after it up to the project's
  version; after "to" ("upgrade to 16.4"): after the project's version up to it;
  otherwise that release itself ("what changed in 16.4");
* no version: the whole history of the APIs it names ("is middleware deprecated"),
  or, naming none, the project's own minor release ("what's new?").
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from raggin_lsp.changes import Change, changes_within, matches, release_key
from raggin_lsp.corpus.apis import ApiCatalog
from raggin_lsp.generate.extractive import HISTORY_HEADING
from raggin_lsp.retrieve.model import SearchResult

Release = tuple[int, int, int]

HISTORY_ANCHOR = "version-history"
MAX_ROWS = 40  # rows given to the answer; the newest are kept
MAX_PAGES = 24  # API pages those rows may come from
_ANY = 10**6  # stands for "every patch" or "every minor" of a release written shorter

# Phrases that ask about changes in any question; "change" alone is too common.
_ASKS_CHANGES = re.compile(
    r"\b(?:what(?:'s|\s+is|\s+has|\s+have)?\s+(?:changed|new|different)|changes?\s+"
    r"(?:in|between|since|from)|changelog|release\s+notes?|upgrad\w*|migrat\w*|breaking"
    r"|new\s+in|introduced\s+in|added\s+in|differences?\s+between)\b",
    re.IGNORECASE,
)
_ASKS_DEPRECATION = re.compile(
    r"\b(?:deprecat\w*|removed|renamed|obsolete|replaced)\b", re.IGNORECASE
)
_VERSION = re.compile(
    r"(?:\b(?:v|version\s+|next(?:\.js)?\s*)(?P<major>\d{1,2})(?:\.(?P<minor>\d{1,3}))?"
    r"(?:\.(?P<patch>\d{1,3}))?|(?<![\w.])(?P<major2>\d{1,2})\.(?P<minor2>\d{1,3})"
    r"(?:\.(?P<patch2>\d{1,3}))?)(?![\w.]*\d)",
    re.IGNORECASE,
)
_AFTER = re.compile(r"\b(?:since|from|after)\s+(?:v|version\s+|next(?:\.js)?\s*)?$", re.I)
_UP_TO = re.compile(r"\b(?:to|until|into)\s+(?:v|version\s+|next(?:\.js)?\s*)?$", re.I)
_WORD = re.compile(r"[@\w][\w./@-]*[\w]|\w")
_DEPRECATION_ROW = re.compile(r"deprecat|renam|remov|replac", re.IGNORECASE)


@dataclass(frozen=True)
class ChangesAsked:
    """The releases a question asks about (both inclusive) and the words that may name
    APIs; ``deprecations`` when it asks whether something is deprecated or removed."""

    first: Release
    last: Release
    words: tuple[str, ...]
    deprecations: bool = False
    names_releases: bool = True


@dataclass(frozen=True)
class _Written:
    """A version as the question writes it, e.g. ``16.4`` (precision 2)."""

    parts: tuple[int, ...]
    start: int

    @property
    def low(self) -> Release:
        major, minor, patch = (*self.parts, 0, 0)[:3]
        return major, minor, patch

    @property
    def high(self) -> Release:
        major, minor, patch = (*self.parts, _ANY, _ANY)[:3]
        return major, minor, patch


def _after(release: Release) -> Release:
    return release[0], release[1], release[2] + 1


def _versions(question: str) -> list[_Written]:
    found = []
    for match in _VERSION.finditer(question):
        groups = match.groupdict()
        major = groups["major"] or groups["major2"]
        minor = groups["minor"] or groups["minor2"]
        patch = groups["patch"] or groups["patch2"]
        parts = tuple(int(p) for p in (major, minor, patch) if p is not None)
        if 9 <= parts[0] <= 99:  # Next.js majors; "1.5x faster" is no version
            found.append(_Written(parts, match.start()))
    return found


def asked_changes(question: str, version: str) -> ChangesAsked | None:
    """What releases ``question`` asks about, for a project on ``version``; None when it
    does not ask what changed (see the module docstring for the rules)."""
    project = release_key(version)
    changes, deprecations = _ASKS_CHANGES.search(question), _ASKS_DEPRECATION.search(question)
    if project is None or not (changes or deprecations):
        return None
    words = tuple(dict.fromkeys(w.strip("`'\"") for w in _WORD.findall(question)))
    written = _versions(question)
    if len(written) >= 2:
        older, newer = sorted(written, key=lambda w: w.low)[:: len(written) - 1]
        return ChangesAsked(_after(older.high), newer.high, words, bool(deprecations))
    if len(written) == 1:
        [one] = written
        before = question[: one.start]
        if _AFTER.search(before):
            return ChangesAsked(_after(one.high), project, words, bool(deprecations))
        if _UP_TO.search(before):
            return ChangesAsked(_after(project), one.high, words, bool(deprecations))
        return ChangesAsked(one.low, one.high, words, bool(deprecations))
    return ChangesAsked((0, 0, 0), project, words, bool(deprecations), names_releases=False)


def changes_for(catalog: ApiCatalog, asked: ChangesAsked) -> list[Change]:
    """The history rows that answer ``asked``: of the APIs it names when it names some
    (a deprecated API's replacement counts as named: its page tells the story), else of
    every API, or of the project's own minor release when no release is named either;
    only deprecations, renames and removals when it asks about those (if the named APIs
    have such rows); at most :data:`MAX_ROWS`, newest kept, from :data:`MAX_PAGES` pages."""
    rows = changes_within(catalog, asked.first, asked.last)
    named = _named_pages(catalog, asked.words)
    if named:
        rows = [row for row in rows if row.page in named]
    elif asked.deprecations or not asked.names_releases:
        project = release_key(catalog.version)
        if asked.deprecations or project is None:
            return []  # "is it deprecated?" about no API the docs know
        rows = changes_within(catalog, (project[0], project[1], 0), project)
    if asked.deprecations:
        rows = [row for row in rows if _DEPRECATION_ROW.search(row.change)] or rows
    kept = rows[-MAX_ROWS:]
    pages = list(dict.fromkeys(row.page for row in reversed(kept)))[:MAX_PAGES]
    return [row for row in kept if row.page in pages]


def _named_pages(catalog: ApiCatalog, words: Iterable[str]) -> set[str]:
    wanted = [word for word in words if len(word) > 2]
    pages = {
        api.url_path for api in catalog.apis.values() if any(matches(api, word) for word in wanted)
    }
    for deprecation in catalog.deprecations:
        if deprecation.page in pages and deprecation.replacement_page:
            pages.add(deprecation.replacement_page)
    return pages


def history_sources(changes: Sequence[Change], version: str) -> list[SearchResult]:
    """One source per API page: its rows, linked to the page's Version History section."""
    by_page: dict[str, list[Change]] = {}
    for change in changes:
        by_page.setdefault(change.page, []).append(change)
    sources = []
    for page, rows in by_page.items():
        first = rows[0]
        lines = [f"- {row.version}: {row.change}" for row in rows]
        sources.append(
            SearchResult(
                url=f"{first.url}#{HISTORY_ANCHOR}",
                url_path=page,
                anchor=HISTORY_ANCHOR,
                version=version,
                title=first.api,
                heading_path=(first.api, HISTORY_HEADING),
                text=f"Version History of `{first.api}` ({first.kind}):\n\n" + "\n".join(lines),
                code=(),
                router=first.router,
                tag="docs",
                score=0.0,
            )
        )
    return sources

"""Which sections of a version are worth most first: the order dense vectors are added in.

A version is searchable lexically within seconds; its dense vectors then arrive over
minutes. They are computed in the docs' own order of value, read from the docs tree
itself (no hand list of pages):

* the top-level folders in their numbered order (``01-app`` before ``02-pages``: the
  docs open on the App Router);
* inside each, the ``api-reference`` folder first (what editors ask about: hovers,
  diagnostics, "what does this function take"), then the rest in the docs' numbered
  navigation order (getting started, then guides, ...);
* a page's outline point before its sections (it carries the page-level signal).
"""

import re
from collections.abc import Sequence

from raggin_lsp.corpus.model import Section
from raggin_lsp.corpus.summary import PAGE_TAG

REFERENCE_FOLDER = "api-reference"
_NUMBERED = re.compile(r"^(\d+)-(.*)$")
_UNNUMBERED = 10**6  # files without a number come after the numbered ones, by name


def _part_key(part: str) -> tuple[int, str]:
    match = _NUMBERED.match(part)
    if match is None:
        return _UNNUMBERED, part
    return int(match.group(1)), match.group(2)


def reading_key(section: Section) -> tuple[object, ...]:
    """Sort key: smaller is worth more (see the module's docstring)."""
    parts = [part for part in section.source_path.split("/") if part]
    keys = [_part_key(part) for part in parts]
    top, rest = (keys[0], keys[1:]) if keys else ((_UNNUMBERED, ""), [])
    reference = any(name == REFERENCE_FOLDER for _, name in rest)
    return (top, 0 if reference else 1, rest, 0 if section.tag == PAGE_TAG else 1)


def value_order(sections: Sequence[Section]) -> list[Section]:
    """``sections`` most valuable first; equals keep their order (a page's own order)."""
    return sorted(sections, key=reading_key)

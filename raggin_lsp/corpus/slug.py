"""Heading anchors as nextjs.org makes them (github-slugger rules).

github-slugger lowercases the heading's plain text, deletes every character that is
not a letter, a number, a combining mark, ``-``, ``_`` or a plain space, and turns
each space into ``-`` (runs are not collapsed). A page numbers repeated slugs
``x``, ``x-1``, ``x-2`` ..., counting every heading on the page in order.
"""

import unicodedata

_KEPT_PUNCTUATION = frozenset("-_ ")
_KEPT_CATEGORIES = ("L", "N", "M")


def github_slug(text: str) -> str:
    """The slug of one heading, without de-duplication."""
    kept = (
        char
        for char in text.lower()
        if char in _KEPT_PUNCTUATION or unicodedata.category(char).startswith(_KEPT_CATEGORIES)
    )
    return "".join(kept).replace(" ", "-")


class Slugger:
    """Unique slugs for the headings of one page, in document order."""

    def __init__(self) -> None:
        self._occurrences: dict[str, int] = {}

    def slug(self, text: str) -> str:
        original = github_slug(text)
        result = original
        # Same loop as github-slugger: a generated "x-1" is itself taken, so a later
        # heading literally titled "x 1" becomes "x-1-1".
        while result in self._occurrences:
            self._occurrences[original] += 1
            result = f"{original}-{self._occurrences[original]}"
        self._occurrences[result] = 0
        return result

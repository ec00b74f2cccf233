"""The two small views :class:`~raggin_lsp.store.index.DocsIndex` runs its jobs against,
whichever backend holds the points: a *read view* (search and listing) and a *write view*
(points plus manifest entries), and the :class:`Backend` that hands them out.

They live apart from the backends so that both backends (embedded Edge in
:mod:`.backends`, a Qdrant server in :mod:`.server`) can implement them without
importing each other.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeAlias

from raggin_lsp.store.collection import Collection
from raggin_lsp.store.model import EntryState, VersionInfo

Points: TypeAlias = Collection  # an Edge shard or a server collection


@dataclass(frozen=True)
class ReadView:
    points: Points | None  # None: nothing stored yet
    entries: list[VersionInfo]  # this profile's versions, complete or not


class WriteView(Protocol):
    points: Points

    def entry(self, version: str) -> VersionInfo | None: ...
    def put_entry(self, version: str, state: EntryState) -> None: ...
    def delete_entry(self, version: str) -> None: ...
    def checkpoint(self) -> None: ...
    def publish(self) -> None:
        """Make what was written so far visible to searches (the job goes on)."""


class Backend(Protocol):
    # Where index jobs keep the vectors of texts already embedded (vector_cache.py); None:
    # no cache, a section is reused only when it is stored whole.
    vector_cache_path: Path | None

    def read(self) -> ReadView: ...
    def all_entries(self) -> list[VersionInfo]: ...
    def counts(self) -> dict[str, int]: ...
    def writing(self) -> AbstractContextManager[WriteView]: ...
    def close(self) -> None: ...

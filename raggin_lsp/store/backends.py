"""Where a profile's points and its list of versions live: embedded Edge or a server.

:class:`DocsIndex` runs its jobs against two small views (:mod:`raggin_lsp.store.views`):
a *read view* (search and listing) and a *write view* (points plus manifest entries),
whichever backend holds them.

* :class:`EmbeddedBackend`: Qdrant Edge shards in immutable generations
  (:mod:`raggin_lsp.store.embedded` explains the many-processes design); writers take the
  store's file lock (:mod:`raggin_lsp.store.locking`).
* :class:`raggin_lsp.store.server.ServerBackend`: a Qdrant server or cluster through
  qdrant-client; the server arbitrates concurrency and the manifest is a payload-only
  collection.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from raggin_lsp.embed.base import ProfileSpec
from raggin_lsp.store.embedded import (
    ProfileFolder,
    ReaderCopy,
    WriteSession,
    entries_of,
    is_local_mode,
    profile_folders,
    unfinished_points,
    write_session,
)
from raggin_lsp.store.locking import writer_lock
from raggin_lsp.store.model import EntryState, IndexBusyError, VersionInfo
from raggin_lsp.store.settings import StoreSettings
from raggin_lsp.store.views import Points, ReadView, WriteView

# ---------------------------------------------------------------------- embedded

VECTOR_CACHE = "vectors.sqlite"


class _EdgeWriteView:
    def __init__(self, session: WriteSession) -> None:
        self._session = session
        self.points: Points = session.collection

    def entry(self, version: str) -> VersionInfo | None:
        return self._session.manifest.entries.get(version)

    def put_entry(self, version: str, state: EntryState) -> None:
        self._session.manifest.put(version, state)
        self._session.save_manifest()

    def delete_entry(self, version: str) -> None:
        self._session.manifest.entries.pop(version, None)
        self._session.save_manifest()

    def checkpoint(self) -> None:
        self._session.checkpoint()

    def publish(self) -> None:
        """Readers take what was written so far as the newest generation; writing goes on."""
        self._session.publish_and_continue()
        self.points = self._session.collection


class EmbeddedBackend:
    """Reads from this process's private copy; writes under the store's file lock."""

    def __init__(
        self,
        settings: StoreSettings,
        spec: ProfileSpec,
        collection: str,
        on_wait: Callable[[str], None] | None,
    ) -> None:
        self.settings = settings
        self.spec = spec
        self.folder = ProfileFolder(settings.folder, collection)
        # Beside the generations: readers never copy it, only the writer uses it.
        self.vector_cache_path: Path | None = self.folder.root / VECTOR_CACHE
        self._on_wait = on_wait
        self._copy = ReaderCopy(self.folder)
        self._lock = threading.RLock()
        self._migrated = False

    def _migrate_once(self) -> None:
        if not self._migrated and is_local_mode(self.settings.folder):
            from raggin_lsp.store.migrate import migrate_local_mode

            migrate_local_mode(
                self.settings.folder,
                lock_timeout_seconds=self.settings.lock_timeout_seconds,
                on_notice=self._on_wait,
            )
        self._migrated = True

    def read(self) -> ReadView:
        with self._lock:
            self._migrate_once()
            points = self._copy.refresh()
            # The entries of the generation this process searches, not of a newer one.
            return ReadView(points=points, entries=entries_of(self.folder, self._copy.manifest))

    def all_entries(self) -> list[VersionInfo]:
        with self._lock:
            self._migrate_once()
            return [
                info
                for folder in profile_folders(self.settings.folder)
                for info in entries_of(folder)
            ]

    def counts(self) -> dict[str, int]:
        """Points stored per collection, an unfinished job's included."""
        with self._lock:
            counts = {}
            for folder in profile_folders(self.settings.folder):
                published = folder.published_manifest()
                counts[folder.collection] = published.points if published is not None else 0
                if folder.staging.exists():
                    counts[folder.collection] = self._unfinished_points(folder)
            return counts

    def _unfinished_points(self, folder: ProfileFolder) -> int:
        """Exact when no writer runs (the shard is opened and counted), else as last saved."""
        try:
            with writer_lock(self.settings.folder, timeout_seconds=0):
                return unfinished_points(folder)
        except IndexBusyError:
            unfinished = folder.unfinished_manifest()
            return unfinished.points if unfinished is not None else 0

    @contextmanager
    def writing(self) -> Iterator[WriteView]:
        self._migrate_once()
        folder = self.settings.folder
        with (
            writer_lock(
                folder, timeout_seconds=self.settings.lock_timeout_seconds, on_wait=self._on_wait
            ),
            write_session(
                self.folder,
                self.spec,
                min_free_bytes=self.settings.min_free_bytes,
                on_notice=self._on_wait,
            ) as session,
        ):
            yield _EdgeWriteView(session)

    def close(self) -> None:
        with self._lock:
            self._copy.close()

"""Move an index written by qdrant-client's local mode (raggin-lsp 0.1) into Qdrant Edge.

The old embedded index kept its collections as pickled points in SQLite files
(``meta.json`` + ``collection/<name>/storage.sqlite``). Those files hold the vectors, so
nothing needs embedding again: every raggin collection is read with qdrant-client and
written into a new Edge generation with the same ids, vectors and payloads, then the old
files are moved aside into ``local-mode-backup/`` (the user may delete it). The
migration runs once, under the store's writer lock, the first time a new release opens
the folder; a migration that is interrupted simply runs again.
"""

import shutil
import warnings
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from qdrant_client import QdrantClient, models

from raggin_lsp.embed.base import ProfileSpec
from raggin_lsp.store import manifest
from raggin_lsp.store.embedded import ProfileFolder, is_local_mode, write_session
from raggin_lsp.store.locking import writer_lock
from raggin_lsp.store.model import EntryState, IndexDamagedError, VersionInfo
from raggin_lsp.store.points import StoredPoint
from raggin_lsp.store.schema import MANIFEST_COLLECTION, SPARSE, TEXT
from raggin_lsp.store.server import ServerCollection

BACKUP = "local-mode-backup"
_LEGACY_FILES = ("meta.json", "collection", ".lock")
_BATCH = 256


def migrate_local_mode(
    store: Path,
    *,
    lock_timeout_seconds: float,
    on_notice: Callable[[str], None] | None = None,
) -> int:
    """Migrate ``store`` if it is in the old layout; returns the number of points moved."""
    if not is_local_mode(store):
        return 0
    notice = on_notice or (lambda _message: None)
    with writer_lock(store, timeout_seconds=lock_timeout_seconds, on_wait=on_notice):
        if not is_local_mode(store):
            return 0  # another process migrated it while we waited
        notice(f"migrating the index in {store} to Qdrant Edge (no re-embedding needed)")
        try:
            client = QdrantClient(path=str(store))
        except (RuntimeError, ValueError, OSError) as error:
            raise IndexDamagedError(
                f"The index in {store} was written by an older raggin-lsp and could not be "
                f"opened to migrate it ({error}). Close every older raggin-lsp process and "
                "try again, or delete the folder and index again with `raggin-lsp index "
                "VERSION`."
            ) from None
        try:
            moved = _migrate(client, store)
        finally:
            client.close()
        backup = store / BACKUP
        backup.mkdir(exist_ok=True)
        for name in _LEGACY_FILES:
            if (store / name).exists():
                shutil.move(str(store / name), str(backup / name))
        notice(f"migrated {moved} points; the old files are in {backup} and can be deleted")
        return moved


def _migrate(client: QdrantClient, store: Path) -> int:
    by_collection: dict[str, list[VersionInfo]] = defaultdict(list)
    for info in manifest.entries(client, None):
        by_collection[info.collection].append(info)
    moved = 0
    for name in sorted(client.get_collections().collections, key=lambda c: c.name):
        collection = name.name
        if collection == MANIFEST_COLLECTION or not collection.startswith("raggin_"):
            continue
        spec = _spec_of(client, collection)
        folder = ProfileFolder(store, collection)
        source = ServerCollection(client, collection)
        with write_session(folder, spec) as session:
            for info in by_collection[collection]:
                session.manifest.put(
                    info.version,
                    EntryState(
                        complete=info.complete, sections=info.sections, started_at=info.started_at
                    ),
                )
            # Every point, including those an interrupted job left unlisted (resumable).
            batch: list[StoredPoint] = []
            for point in source.with_version(None, vectors=True):
                batch.append(point)
                if len(batch) == _BATCH:
                    session.collection.upsert(batch)
                    moved += len(batch)
                    batch = []
            session.collection.upsert(batch)
            moved += len(batch)
            session.save_manifest()
    return moved


def _spec_of(client: QdrantClient, collection: str) -> ProfileSpec:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        info = client.get_collection(collection)
    params = info.config.params
    vectors = params.vectors if isinstance(params.vectors, dict) else {}
    sparse = params.sparse_vectors or {}
    metadata = info.config.metadata or {}
    dense = vectors.get(TEXT)
    if dense is None:
        raise IndexDamagedError(f"The old collection {collection} has no '{TEXT}' vectors.")
    modifier = sparse[SPARSE].modifier if SPARSE in sparse else None
    return ProfileSpec(
        name=str(metadata.get("profile", collection)),
        dense_dim=int(dense.size),
        chunk_tokens=0,  # not needed to store points
        sparse_uses_idf=modifier == models.Modifier.IDF,
        fingerprint=str(metadata.get("fingerprint", "")),
    )

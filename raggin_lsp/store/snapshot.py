"""Private, consistent read-only copies of an embedded index folder.

qdrant-client's local mode lets one process at a time open a storage folder, so a
reader never opens the real folder: it copies it into a temporary folder and opens the
copy. The folder holds ``meta.json`` (the collections and their configuration) and one
SQLite file per collection (``collection/<name>/storage.sqlite``). Each SQLite file is
copied with ``sqlite3.Connection.backup``, which reads under one read transaction and so
is consistent even while a writer in another process commits.

Two collections copied one after the other are not one consistent state, so the version
manifest is copied twice: before the sections collection and after it. A version counts
as complete in the snapshot only when both copies say so (see ``DocsIndex``):

* a write job marks a version complete only after all its points are stored, so if the
  first copy lists it, the sections copy (taken later) holds all its points;
* ``remove_version`` unlists a version before it touches any point, so if the second
  copy still lists it, the sections copy (taken earlier) still holds all its points.

The generation counter (a small file bumped after each completed write job) tells a
reader when its copy is out of date.
"""

import contextlib
import json
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from raggin_lsp.store.schema import MANIFEST_COLLECTION

GENERATION_FILE = "raggin-generation"
META_FILE = "meta.json"
STORAGE_FILE = "storage.sqlite"
# The manifest as it was before the sections were copied, kept as a second collection.
MANIFEST_BEFORE = f"{MANIFEST_COLLECTION}_before"
_PREFIX = "raggin-snapshot-"


def read_generation(folder: Path) -> int:
    try:
        return int((folder / GENERATION_FILE).read_text(encoding="utf-8").strip() or 0)
    except (FileNotFoundError, ValueError):
        return 0


def bump_generation(folder: Path) -> int:
    """Called by the writer holding the lock, so read-modify-write does not race."""
    value = read_generation(folder) + 1
    tmp = folder / f"{GENERATION_FILE}.tmp"
    tmp.write_text(str(value), encoding="utf-8")
    tmp.replace(folder / GENERATION_FILE)
    return value


def take_snapshot(folder: Path) -> Path:
    """Copy the index in ``folder`` into a new temporary folder and return its path."""
    _remove_abandoned_snapshots()
    target = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-"))
    try:
        meta = _read_meta(folder)
        collections: dict[str, Any] = dict(meta.get("collections", {}))
        if MANIFEST_COLLECTION in collections:
            _copy_collection(folder, MANIFEST_COLLECTION, target, as_name=MANIFEST_BEFORE)
            collections[MANIFEST_BEFORE] = collections[MANIFEST_COLLECTION]
        for name in meta.get("collections", {}):
            if name != MANIFEST_COLLECTION:
                _copy_collection(folder, name, target)
        if MANIFEST_COLLECTION in collections:
            _copy_collection(folder, MANIFEST_COLLECTION, target)
        snapshot_meta = {"collections": collections, "aliases": meta.get("aliases", {})}
        (target / META_FILE).write_text(json.dumps(snapshot_meta), encoding="utf-8")
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return target


def remove_snapshot(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def _read_meta(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"collections": {}, "aliases": {}}
    return data if isinstance(data, dict) else {"collections": {}, "aliases": {}}


def _copy_collection(folder: Path, name: str, target: Path, *, as_name: str | None = None) -> None:
    source = folder / "collection" / name / STORAGE_FILE
    destination = target / "collection" / (as_name or name) / STORAGE_FILE
    destination.parent.mkdir(parents=True, exist_ok=True)
    if not source.exists():
        # Listed but gone (a collection being deleted): an empty copy is the honest answer.
        return
    with (
        contextlib.closing(_connect_source(source)) as src,
        contextlib.closing(sqlite3.connect(destination)) as dst,
    ):
        src.backup(dst)


def _connect_source(path: Path) -> sqlite3.Connection:
    # Read-write (never create) so that SQLite can roll back the journal a killed writer
    # left behind; a read-only connection cannot, and would fail on such a file.
    try:
        return sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=30.0)
    except sqlite3.OperationalError:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)


def _remove_abandoned_snapshots() -> None:
    """Snapshots of processes that died without closing (kill -9) would pile up in /tmp."""
    for candidate in Path(tempfile.gettempdir()).glob(f"{_PREFIX}*"):
        pid_text = candidate.name[len(_PREFIX) :].split("-", 1)[0]
        if pid_text.isdigit() and not _alive(int(pid_text)):
            shutil.rmtree(candidate, ignore_errors=True)


def _alive(pid: int) -> bool:
    if os.name != "posix":
        return True  # os.kill(pid, 0) would terminate the process on Windows
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True

"""Many processes, one embedded index: immutable generations of Qdrant Edge shards.

Qdrant Edge lets exactly one handle open a shard directory, and has no read-only mode;
yet several editor windows (several language servers) must search the same index while
a CLI ``index`` writes to it. The design here never lets two handles meet:

* Each embedding profile (one Qdrant "collection") has a folder
  ``<store>/<collection>/`` holding **published generations** ``g00000007/``, each an
  immutable, closed shard plus ``manifest.json`` (the versions it holds, complete or not).
  The newest complete generation is the one with the highest number; publishing is one
  atomic ``rename`` of a finished directory, so a reader sees the old generation or the
  new one, never half of one.
* **The writer** (one at a time, under the store's file lock,
  :mod:`raggin_lsp.store.locking`) works in ``staging/``: a copy of the newest
  generation, written through Edge with its write-ahead log, so a ``kill -9`` loses at
  most the batch in flight. ``staging/manifest.json`` lists the job's version as
  incomplete from the first batch on, which is how readers learn that a version was
  started and how to finish it. A later writer resumes from ``staging/`` and embeds only
  the sections not stored yet. At the end the shard is flushed, closed and renamed into
  the next generation. Older generations are deleted once no reader is copying them.
* **Each reader** (search process) copies the newest generation's shard into a private
  folder ``readers/<token>/`` and opens that copy, which no other process touches. It
  checks the generation number before each read (one directory listing) and swaps in a
  fresh copy when a newer one was published, so a new version is searchable within a
  second of completing, with no restart. Copies are small (files are copied with their
  holes kept: ~30 MB for a whole docs version) and left-over copies of killed readers are
  swept by the next reader.

We chose copies over one process serving the others through a socket because nothing
then depends on which process started first or is still alive, and a reader never waits
on a writer: the price is disk, one small copy per open window.
"""

import contextlib
import errno
import json
import os
import secrets
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import portalocker

from raggin_lsp.embed.base import ProfileSpec
from raggin_lsp.store.edge import EdgeCollection
from raggin_lsp.store.format import EMBEDDED_FORMAT
from raggin_lsp.store.model import EntryState, IndexDamagedError, IndexWriteError, VersionInfo

SHARD = "shard"
MANIFEST = "manifest.json"
STAGING = "staging"
READERS = "readers"
READING_LOCK = "reading.lock"
_GENERATION_PREFIX = "g"
_STALE_READER_SECONDS = 30.0
_COPY_ATTEMPTS = 5


# ------------------------------------------------------------------ manifest


@dataclass
class Manifest:
    """The versions one shard holds; written next to the shard as JSON."""

    collection: str
    profile: str
    fingerprint: str
    entries: dict[str, VersionInfo]
    points: int = 0  # points in the shard when it was last written

    @classmethod
    def empty(cls, collection: str, spec: ProfileSpec) -> "Manifest":
        return cls(collection, spec.name, spec.fingerprint, {})

    @classmethod
    def read(cls, path: Path) -> "Manifest":
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if int(raw.get("format", EMBEDDED_FORMAT)) != EMBEDDED_FORMAT:
                raise ValueError(
                    f"written in layout {raw.get('format')} by another raggin-lsp release, "
                    f"this one reads layout {EMBEDDED_FORMAT}"
                )
            entries = {
                str(item["version"]): VersionInfo(
                    version=str(item["version"]),
                    complete=bool(item["complete"]),
                    sections=int(item["sections"]),
                    profile=str(raw["profile"]),
                    fingerprint=str(raw["fingerprint"]),
                    started_at=float(item["started_at"]),
                    completed_at=(
                        float(item["completed_at"]) if item.get("completed_at") else None
                    ),
                    collection=str(raw["collection"]),
                    lexical=bool(item.get("lexical", False)),
                    dense=int(item.get("dense", item["sections"] if item["complete"] else 0)),
                )
                for item in raw["versions"]
            }
            return cls(
                str(raw["collection"]),
                str(raw["profile"]),
                str(raw["fingerprint"]),
                entries,
                int(raw.get("points", 0)),
            )
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise damaged(path.parent, f"{path.name}: {error}") from None

    def write(self, path: Path) -> None:
        data = {
            "format": EMBEDDED_FORMAT,
            "collection": self.collection,
            "profile": self.profile,
            "fingerprint": self.fingerprint,
            "points": self.points,
            "versions": [
                {
                    "version": info.version,
                    "complete": info.complete,
                    "sections": info.sections,
                    "started_at": info.started_at,
                    "completed_at": info.completed_at,
                    "lexical": info.lexical,
                    "dense": info.dense,
                }
                for info in self.entries.values()
            ],
        }
        _write_atomically(path, json.dumps(data, indent=1))

    def put(self, version: str, state: EntryState) -> None:
        self.entries[version] = state.info(version, self.profile, self.fingerprint, self.collection)


# ------------------------------------------------------------------ folders


class ProfileFolder:
    """``<store>/<collection>/``: generations, the writer's staging area, reader copies."""

    def __init__(self, store: Path, collection: str) -> None:
        self.root = store / collection
        self.collection = collection

    def generations(self) -> list[Path]:
        """Published generations, oldest first."""
        if not self.root.is_dir():
            return []
        found = [
            path
            for path in self.root.iterdir()
            if path.name.startswith(_GENERATION_PREFIX) and path.name[1:].isdigit()
        ]
        return sorted(found, key=lambda path: int(path.name[1:]))

    def current(self) -> Path | None:
        generations = self.generations()
        return generations[-1] if generations else None

    @property
    def staging(self) -> Path:
        return self.root / STAGING

    def next_generation(self) -> Path:
        current = self.current()
        number = int(current.name[1:]) + 1 if current is not None else 1
        return self.root / f"{_GENERATION_PREFIX}{number:08d}"

    def published_manifest(self) -> Manifest | None:
        current = self.current()
        return Manifest.read(current / MANIFEST) if current is not None else None

    def unfinished_manifest(self) -> Manifest | None:
        """The manifest of a write job in progress or interrupted, if there is one."""
        path = self.staging / MANIFEST
        if not path.exists():
            return None
        try:
            return Manifest.read(path)
        except IndexDamagedError:
            return None  # being rewritten this instant, or a job killed mid-write


def is_local_mode(store: Path) -> bool:
    """The folder holds an index written by qdrant-client's local mode (an older release)."""
    return (store / "meta.json").is_file() and (store / "collection").is_dir()


def profile_folders(store: Path) -> list[ProfileFolder]:
    """Every profile folder of an embedded store (one per collection)."""
    if not store.is_dir():
        return []
    return [
        ProfileFolder(store, path.name)
        for path in sorted(store.iterdir())
        if path.is_dir() and path.name.startswith("raggin_")
    ]


def entries_of(folder: ProfileFolder, published: Manifest | None = None) -> list[VersionInfo]:
    """Published entries (of ``published``, else the newest generation's), plus the
    versions an unfinished job has started (incomplete)."""
    if published is None:
        published = folder.published_manifest()
    found = dict(published.entries) if published is not None else {}
    unfinished = folder.unfinished_manifest()
    if unfinished is not None:
        for version, info in unfinished.entries.items():
            if not info.complete and version not in found:
                found[version] = info
    return list(found.values())


def unfinished_points(folder: ProfileFolder) -> int:
    """Points in an interrupted job's shard; call with the writer lock held."""
    try:
        collection = EdgeCollection.load(folder.staging / SHARD)
    except Exception:
        return 0
    try:
        return collection.count()
    finally:
        collection.close()


# ------------------------------------------------------------------ writing


class WriteSession:
    """The writer's shard and manifest; call with the store's writer lock held."""

    def __init__(
        self,
        folder: ProfileFolder,
        spec: ProfileSpec,
        *,
        min_free_bytes: int = 0,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        self.folder = folder
        self.spec = spec
        self.min_free_bytes = min_free_bytes
        self._notice = on_notice or (lambda _message: None)
        self.collection, self.manifest = self._open_staging()

    def _open_staging(self) -> tuple[EdgeCollection, Manifest]:
        staging = self.folder.staging
        if staging.exists():
            try:
                manifest = Manifest.read(staging / MANIFEST)
                return EdgeCollection.load(staging / SHARD), manifest
            except Exception as error:
                self._notice(
                    f"discarding an unfinished write job in {staging} that cannot be "
                    f"resumed ({error}); starting again from the last complete index"
                )
                shutil.rmtree(staging, ignore_errors=True)
        self.folder.root.mkdir(parents=True, exist_ok=True)
        current = self.folder.current()
        copied = _disk_bytes(current / SHARD) if current is not None else 0
        _require_space(self.folder.root, self.min_free_bytes + copied)
        tmp = self.folder.root / f".staging-{secrets.token_hex(4)}"
        try:
            if current is not None:
                copy_shard(current / SHARD, tmp / SHARD)
                Manifest.read(current / MANIFEST).write(tmp / MANIFEST)
            else:
                EdgeCollection.create(tmp / SHARD, self.spec).close()
                Manifest.empty(self.folder.collection, self.spec).write(tmp / MANIFEST)
            tmp.replace(staging)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return EdgeCollection.load(staging / SHARD), Manifest.read(staging / MANIFEST)

    def save_manifest(self) -> None:
        self.collection.flush()
        self.manifest.write(self.folder.staging / MANIFEST)

    def checkpoint(self) -> None:
        """Make what was written so far durable, and stop before the disk runs full."""
        self.collection.flush()
        self.manifest.points = self.collection.count()
        self.manifest.write(self.folder.staging / MANIFEST)
        _require_space(self.folder.root, self.min_free_bytes)

    def publish(self) -> Path:
        """Close the shard and publish it as the next generation; returns its folder."""
        self.collection.flush()
        self.manifest.points = self.collection.count()
        self.collection.close()
        self.manifest.write(self.folder.staging / MANIFEST)
        target = self.folder.next_generation()
        (self.folder.staging / READING_LOCK).touch()
        self.folder.staging.replace(target)
        _fsync_dir(self.folder.root)
        self._collect_garbage(keep=target)
        return target

    def publish_and_continue(self) -> None:
        """Publish what was written so far (readers search it within a second), then go
        on writing in a fresh ``staging/`` copied from it."""
        self.publish()
        self.collection, self.manifest = self._open_staging()

    def abandon(self) -> None:
        """Close the shard, keeping ``staging/`` for the next run to resume."""
        with contextlib.suppress(Exception):
            self.collection.flush()
        with contextlib.suppress(Exception):
            self.collection.close()

    def _collect_garbage(self, keep: Path) -> None:
        for generation in self.folder.generations():
            if generation == keep:
                continue
            lock_path = generation / READING_LOCK
            try:
                with lock_path.open("a+") as handle:
                    portalocker.lock(handle, portalocker.LOCK_EX | portalocker.LOCK_NB)
                    shutil.rmtree(generation, ignore_errors=True)
            except (portalocker.exceptions.LockException, OSError):
                continue  # a reader is copying it; the next publish will try again


@contextlib.contextmanager
def write_session(
    folder: ProfileFolder,
    spec: ProfileSpec,
    *,
    min_free_bytes: int = 0,
    on_notice: Callable[[str], None] | None = None,
) -> Iterator[WriteSession]:
    """A write job: published when the block ends normally, resumable when it does not."""
    try:
        session = WriteSession(folder, spec, min_free_bytes=min_free_bytes, on_notice=on_notice)
    except OSError as error:
        raise _write_error(folder, error) from None
    try:
        yield session
    except BaseException as error:
        session.abandon()
        if _is_disk_full(error):
            raise _write_error(folder, error) from None
        raise
    try:
        session.publish()
    except Exception as error:
        session.abandon()
        if _is_disk_full(error) or isinstance(error, OSError):
            raise _write_error(folder, error) from None
        raise


def _require_space(folder: Path, needed: int) -> None:
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise OSError(
            errno.ENOSPC, f"{free // 2**20} MiB free, {needed // 2**20} MiB needed", str(folder)
        )


def _disk_bytes(folder: Path) -> int:
    """Bytes ``folder`` really occupies (holes of sparse files not counted)."""
    total = 0
    for path in folder.rglob("*"):
        with contextlib.suppress(OSError):
            stat = path.stat()
            if path.is_file():
                total += getattr(stat, "st_blocks", 0) * 512 or stat.st_size
    return total


def _is_disk_full(error: BaseException) -> bool:
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(error).lower()
    return "no space left" in text or "disk quota" in text


def _megabytes(size: int) -> str:
    return f"{size / 2**20:,.0f} MB"


def _write_error(folder: ProfileFolder, error: BaseException) -> IndexWriteError:
    if not _is_disk_full(error):
        return IndexWriteError(
            f"Writing the index in {folder.root} failed: a file could not be written "
            f"({error}). Every version that was complete before is unharmed and still "
            "searchable; what this job stored is kept. Run the same command again to "
            "finish it."
        )
    free = shutil.disk_usage(folder.root).free if folder.root.exists() else 0
    return IndexWriteError(
        f"Writing the index in {folder.root} failed: the disk is full ({error}). "
        f"The index folder takes {_megabytes(_disk_bytes(folder.root))} and "
        f"{_megabytes(free)} are free on its disk. Every version that was complete "
        "before is unharmed and still searchable; what this job stored is kept. Free some "
        "space on that disk (or put the index elsewhere with `--qdrant-path` or the "
        "`qdrantPath` setting) and run the same command again to finish it.",
        disk_full=True,
    )


# ------------------------------------------------------------------ reading


class ReaderCopy:
    """This process's private, openable copy of a profile's newest generation."""

    def __init__(self, folder: ProfileFolder) -> None:
        self.folder = folder
        self.generation: Path | None = None
        self.collection: EdgeCollection | None = None
        self.manifest: Manifest | None = None
        self._copy: Path | None = None
        self._lock: IO[str] | None = None

    def refresh(self) -> EdgeCollection | None:
        """The open copy of the newest generation (None when nothing was published)."""
        current = self.folder.current()
        if current is None:
            self.close()
            return None
        if current == self.generation and self.collection is not None:
            return self.collection
        for _attempt in range(_COPY_ATTEMPTS):
            try:
                self._swap_to(current)
                return self.collection
            except FileNotFoundError:
                # The generation was replaced and collected while we copied: take the new one.
                current = self.folder.current()
                if current is None:
                    self.close()
                    return None
            except OSError as error:
                if not _is_disk_full(error):
                    raise
                raise IndexWriteError(
                    f"There is not enough free disk space in {self.folder.root} to open the "
                    f"index: each search process keeps a private copy of it "
                    f"(~{_disk_bytes(current / SHARD) // 2**20 + 1} MB here). Free some "
                    "space and try again; the index itself is unharmed."
                ) from None
        raise IndexDamagedError(
            f"Could not copy the index in {self.folder.root}: it changed under us "
            f"{_COPY_ATTEMPTS} times in a row. Try again."
        )

    def _swap_to(self, generation: Path) -> None:
        readers = self.folder.root / READERS
        readers.mkdir(parents=True, exist_ok=True)
        _sweep_readers(readers)
        token = f"{os.getpid()}-{secrets.token_hex(4)}"
        lock = (readers / f"{token}.lock").open("a+")
        portalocker.lock(lock, portalocker.LOCK_EX | portalocker.LOCK_NB)
        target = readers / token
        try:
            with (generation / READING_LOCK).open("a+") as reading:
                portalocker.lock(reading, portalocker.LOCK_SH)
                if not (generation / READING_LOCK).exists():
                    raise FileNotFoundError(generation)  # collected before we got the lock
                manifest = Manifest.read(generation / MANIFEST)
                copy_shard(generation / SHARD, target / SHARD, reader=True)
            try:
                collection = EdgeCollection.load(target / SHARD)
            except Exception as error:
                raise damaged(generation, error) from None
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            _release(lock, readers / f"{token}.lock")
            raise
        self.close()
        self.generation, self.collection, self.manifest = generation, collection, manifest
        self._copy, self._lock = target, lock

    def close(self) -> None:
        if self.collection is not None:
            with contextlib.suppress(Exception):
                self.collection.close()
        if self._copy is not None:
            shutil.rmtree(self._copy, ignore_errors=True)
            if self._lock is not None:
                _release(self._lock, self._copy.with_name(self._copy.name + ".lock"))
        self.generation = self.collection = self.manifest = None
        self._copy = self._lock = None


def damaged(path: Path, error: object) -> IndexDamagedError:
    return IndexDamagedError(
        f"The embedded index in {path} is damaged and cannot be opened ({error}). "
        f"Delete that folder and index again with `raggin-lsp index VERSION` for each "
        "version you need (`raggin-lsp stats` lists them)."
    )


def _sweep_readers(readers: Path) -> None:
    """Remove copies left by reader processes that died without cleaning up."""
    now = time.time()
    for lock_path in readers.glob("*.lock"):
        try:
            if now - lock_path.stat().st_mtime < _STALE_READER_SECONDS:
                continue
            with lock_path.open("a+") as handle:
                portalocker.lock(handle, portalocker.LOCK_EX | portalocker.LOCK_NB)
                shutil.rmtree(lock_path.with_suffix(""), ignore_errors=True)
                lock_path.unlink(missing_ok=True)
        except (portalocker.exceptions.LockException, OSError):
            continue


def _release(handle: IO[str], path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)
    with contextlib.suppress(Exception):
        portalocker.unlock(handle)
    handle.close()


# ------------------------------------------------------------------ files


def copy_shard(source: Path, target: Path, *, reader: bool = False) -> None:
    """Copy a closed shard, keeping the holes of its files.

    Edge pre-allocates its storage and log files (32 MiB each) as sparse files; a plain
    copy would write every hole out. The write-ahead log must come along even though a
    closed shard has applied all of it: it carries the operation counter, and a shard
    opened without it numbers new operations from zero, which Qdrant then ignores as
    older than the points they update. A ``reader``'s copy, which is never written to,
    leaves the log's closed segments behind: Edge reads each one whole when it opens the
    shard, and a full one (32 MiB, all applied) then stays resident in the reader.
    """
    ignore = _closed_log_segments if reader else None
    shutil.copytree(source, target, copy_function=_copy_sparse, ignore=ignore)


def _closed_log_segments(folder: str, names: list[str]) -> set[str]:
    if Path(folder).name != "wal":
        return set()
    return {name for name in names if name.startswith("closed-")}


def _copy_sparse(source: str, target: str) -> None:
    with Path(source).open("rb") as src, Path(target).open("wb") as dst:
        size = os.fstat(src.fileno()).st_size
        seek_data = getattr(os, "SEEK_DATA", None)
        seek_hole = getattr(os, "SEEK_HOLE", None)
        if seek_data is None or seek_hole is None:
            shutil.copyfileobj(src, dst)
            return
        position = 0
        while position < size:
            try:
                start = os.lseek(src.fileno(), position, seek_data)
            except OSError as error:
                if error.errno == errno.ENXIO:
                    break  # only a hole is left
                raise
            end = os.lseek(src.fileno(), start, seek_hole)
            src.seek(start)
            dst.seek(start)
            remaining = end - start
            while remaining > 0:
                chunk = src.read(min(remaining, 1 << 20))
                if not chunk:
                    break
                dst.write(chunk)
                remaining -= len(chunk)
            position = end
        dst.truncate(size)


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _fsync_dir(path: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

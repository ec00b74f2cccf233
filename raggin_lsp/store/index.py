"""The versioned docs index: one class hiding where the vectors live and who may write.

Design (embedded mode). qdrant-client's local mode lets one process at a time open a
storage folder, yet two editor windows (two language servers) must both search while
one of them may be indexing. So:

* **Writers** (index, remove, import) take an OS file lock next to the storage
  (:mod:`raggin_lsp.store.locking`), open the real folder for the duration of the job and
  close it again. A second writer waits, bounded, and is told why.
* **Readers** never open the real folder. They search a private copy made with SQLite's
  backup API (:mod:`raggin_lsp.store.snapshot`), refreshed when the generation counter
  (bumped after each completed write job) changes. A write job in progress is invisible
  to readers until it completes; a reader is never blocked by a writer for more than a
  SQLite commit.

Local mode holds every point in memory anyway, so a copy costs what opening the folder
costs (a docs version is a few thousand points). Searches on the copy run in numpy
(:class:`raggin_lsp.store.engine.MemoryEngine`, same ranking as Qdrant, 10-40 ms on
4,000 points) because local mode's Python filters take seconds at that size. We kept
qdrant-client rather than ``qdrant-edge-py`` because the very same code then talks to a
Qdrant server or cluster when ``StoreSettings.url`` is set; there, the server arbitrates
concurrency and no lock or snapshot is used.

Content addressing: a point's id is its section's content hash, so a section unchanged
between releases is embedded once and lists every version in its ``versions`` payload.
A killed write job leaves its points behind, unlisted; the next run finds them by id and
does not embed them again.
"""

import threading
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from qdrant_client import QdrantClient, models

from raggin_lsp.corpus.model import Section
from raggin_lsp.embed.base import Embedder, ProfileSpec
from raggin_lsp.embed.catalog import DEFAULT_PROFILE
from raggin_lsp.errors import NotIndexedError
from raggin_lsp.store import manifest, snapshot, transfer
from raggin_lsp.store.engine import (
    FusionMethod,
    Hit,
    MemoryEngine,
    QdrantEngine,
    QueryVector,
    SearchEngine,
)
from raggin_lsp.store.locking import writer_lock
from raggin_lsp.store.model import (
    CollectionStats,
    IndexInterrupted,
    IndexProgress,
    IndexReport,
    ProfileMismatchError,
    VersionInfo,
)
from raggin_lsp.store.schema import (
    KEYWORD_FIELDS,
    MANIFEST_COLLECTION,
    collection_name,
    point_id,
    point_vectors,
    section_payload,
    sparse_vectors_config,
    texts_to_embed,
    vectors_config,
    version_key,
)
from raggin_lsp.store.settings import StoreSettings

ProgressSink = Callable[[IndexProgress], None]
StopCheck = Callable[[], bool]

_ID_PAGE = 256  # ids per retrieve / set_payload / delete call
_SCROLL_PAGE = 512


class DocsIndex:
    """Open with :meth:`open`; close with :meth:`close` (or use it as a context manager)."""

    def __init__(
        self,
        settings: StoreSettings,
        spec: ProfileSpec,
        *,
        client: QdrantClient | None = None,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        self.settings = settings
        self.spec = spec
        self.collection = collection_name(spec)
        self._on_wait = on_wait
        # A given client (or a server URL) serves reads and writes alike: no lock, no copy.
        self._shared: QdrantClient | None = client
        if self._shared is None and settings.url is not None:
            self._shared = QdrantClient(url=settings.url, api_key=settings.api_key)
        self._read_lock = threading.RLock()
        self._snapshot_client: QdrantClient | None = None
        self._snapshot_path: Path | None = None
        self._snapshot_generation = -1
        self._memory: MemoryEngine | None = None

    @classmethod
    def open(
        cls,
        settings: StoreSettings,
        spec: ProfileSpec,
        *,
        client: QdrantClient | None = None,
        on_wait: Callable[[str], None] | None = None,
    ) -> "DocsIndex":
        return cls(settings, spec, client=client, on_wait=on_wait)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        with self._read_lock:
            self._drop_snapshot()
            if self._shared is not None:
                self._shared.close()

    @property
    def embedded(self) -> bool:
        return self._shared is None

    # ----------------------------------------------------------------- reading

    def version_infos(self) -> list[VersionInfo]:
        """Manifest entries of this profile's collection, complete or not."""
        with self._read_lock:
            return self._entries(self._reader(), self.collection)

    def versions(self) -> list[str]:
        """Complete (searchable) versions, oldest first."""
        found = [info.version for info in self.version_infos() if info.complete]
        return sorted(found, key=version_key)

    def require_version(self, version: str) -> None:
        available = self.versions()
        if version in available:
            return
        held = ", ".join(available) if available else "none yet"
        profile = "" if self.spec.name == DEFAULT_PROFILE else f" --profile {self.spec.name}"
        message = (
            f"Next.js {version} is not indexed for the '{self.spec.name}' profile "
            f"(indexed versions: {held}). Index it with `raggin-lsp index {version}{profile}`."
        )
        with self._read_lock:
            outdated = [
                info
                for info in self._entries(self._reader(), None)
                if info.profile == self.spec.name
                and info.collection != self.collection
                and info.version == version
            ]
        if outdated:
            message += (
                f" The index holds {version} embedded with an older '{self.spec.name}' model "
                f"({outdated[0].fingerprint}), which cannot be searched with the current one."
            )
        raise NotIndexedError(message)

    def latest_major(self) -> int | None:
        majors = [version_key(version)[0][:1] for version in self.versions()]
        numbers = [major[0] for major in majors if major]
        return max(numbers) if numbers else None

    def rank(
        self,
        name: str,
        query: QueryVector,
        version: str,
        routers: Sequence[str] | None,
        limit: int,
        only: Sequence[str] | None = None,
    ) -> list[Hit]:
        """Best points of ``version`` for one named vector; see :mod:`.engine`."""
        with self._read_lock:
            return self._engine().rank(name, query, version, routers, limit, only)

    def fuse(
        self,
        method: FusionMethod,
        queries: Mapping[str, QueryVector],
        version: str,
        routers: Sequence[str] | None,
        limit: int,
        candidates: int,
    ) -> list[Hit]:
        """Per-vector candidates fused by RRF or DBSF; see :mod:`.engine`."""
        with self._read_lock:
            return self._engine().fuse(method, queries, version, routers, limit, candidates)

    def stats(self) -> list[CollectionStats]:
        """Every raggin collection in this store: points and versions with section counts."""
        with self._read_lock:
            client = self._reader()
            by_collection: dict[str, list[VersionInfo]] = defaultdict(list)
            for info in self._entries(client, None):
                by_collection[info.collection].append(info)
            by_collection.setdefault(self.collection, [])
            stats = []
            for name in sorted(by_collection):
                infos = sorted(by_collection[name], key=lambda info: version_key(info.version))
                points = client.count(name).count if client.collection_exists(name) else 0
                stats.append(
                    CollectionStats(
                        collection=name,
                        points=points,
                        versions={i.version: i.sections for i in infos if i.complete},
                        incomplete=tuple(i.version for i in infos if not i.complete),
                        location=self.settings.location,
                    )
                )
            return stats

    def export_version(self, version: str, file: Path) -> int:
        """Write ``version``'s points (vectors and payload) to ``file``; returns their count."""
        self.require_version(version)
        with self._read_lock:
            client = self._reader()
            version_filter = _has_version(version)
            total = client.count(self.collection, count_filter=version_filter).count
            header = transfer.ExportHeader(
                profile=self.spec.name,
                fingerprint=self.spec.fingerprint,
                dense_dim=self.spec.dense_dim,
                version=version,
                sections=total,
            )
            written = 0
            with transfer.open_for_writing(file) as handle:
                transfer.write_line(handle, header.to_json())
                for record in _scroll(client, self.collection, version_filter, vectors=True):
                    transfer.write_line(handle, transfer.encode_point(record))
                    written += 1
            return written

    # ----------------------------------------------------------------- writing

    def index_version(
        self,
        version: str,
        sections: Sequence[Section],
        embedder: Embedder,
        *,
        progress: ProgressSink | None = None,
        should_stop: StopCheck | None = None,
        batch_size: int = 16,
    ) -> IndexReport:
        """Store ``sections`` as ``version``; embeds only sections not stored yet.

        The version becomes searchable only when every section is stored. With
        ``should_stop`` returning true the job stops between batches and raises
        :class:`IndexInterrupted`; what was stored is kept for the next run.
        """
        if embedder.spec.fingerprint != self.spec.fingerprint:
            raise ProfileMismatchError(
                f"The embedder '{embedder.spec.name}' does not match this index's profile "
                f"'{self.spec.name}' (different model fingerprint)."
            )
        started = time.monotonic()
        unique = _unique_sections(sections)
        with self._writer() as client:
            previous = self._entry(client, version)
            if previous is None or not previous.complete:
                manifest.put(
                    client,
                    self.collection,
                    self.spec,
                    version,
                    complete=False,
                    sections=len(unique),
                    started_at=time.time(),
                )
            existing = self._stored_versions(client, list(unique))
            self._attach(client, version, existing)
            reused = len(existing)
            todo = [section for pid, section in unique.items() if pid not in existing]
            tracker = _Tracker(version, len(unique), reused, started, progress)
            tracker.report(0)
            for start in range(0, len(todo), max(1, batch_size)):
                if should_stop is not None and should_stop():
                    raise IndexInterrupted(
                        f"Indexing Next.js {version} was stopped after {tracker.done} of "
                        f"{len(unique)} sections. Nothing is lost: run `raggin-lsp index "
                        f"{version}` again to finish it."
                    )
                batch = todo[start : start + batch_size]
                client.upsert(self.collection, points=_embed(batch, version, embedder), wait=True)
                tracker.report(len(batch))
            self._finish(client, version, set(unique), started_at=started)
        return IndexReport(
            version=version,
            sections_total=len(unique),
            embedded=len(todo),
            reused=reused,
            seconds=time.monotonic() - started,
        )

    def import_file(
        self,
        file: Path,
        *,
        progress: ProgressSink | None = None,
        should_stop: StopCheck | None = None,
        batch_size: int = 256,
    ) -> IndexReport:
        """Load an export made with the same profile and model; no model runs."""
        started = time.monotonic()
        header = transfer.read_header(file, self.spec)
        lines = transfer.read_points(file)
        version = header.version
        with self._writer() as client:
            if self._entry(client, version) is None:
                manifest.put(
                    client,
                    self.collection,
                    self.spec,
                    version,
                    complete=False,
                    sections=header.sections,
                    started_at=time.time(),
                )
            tracker = _Tracker(version, header.sections, 0, started, progress)
            seen: set[str] = set()
            embedded = reused = 0
            for batch in _batched(lines, max(1, batch_size)):
                if should_stop is not None and should_stop():
                    raise IndexInterrupted(
                        f"Importing Next.js {version} from {file} was stopped; run the import "
                        "again to finish it."
                    )
                decoded = [transfer.decode_point(data) for data in batch]
                existing = self._stored_versions(client, [pid for pid, _, _ in decoded])
                self._attach(client, version, existing)
                fresh = [
                    models.PointStruct(
                        id=pid, vector=vectors, payload={**payload, "versions": [version]}
                    )
                    for pid, payload, vectors in decoded
                    if pid not in existing
                ]
                if fresh:
                    client.upsert(self.collection, points=fresh, wait=True)
                seen.update(pid for pid, _, _ in decoded)
                embedded += len(fresh)
                reused += len(decoded) - len(fresh)
                tracker.reused = reused
                tracker.report(len(fresh))
            self._finish(client, version, seen, started_at=started)
        return IndexReport(
            version=version,
            sections_total=len(seen),
            embedded=embedded,
            reused=reused,
            seconds=time.monotonic() - started,
        )

    def remove_version(self, version: str) -> int:
        """Unlist ``version``, detach it from its points, delete points no version uses.

        Returns the number of points deleted.
        """
        with self._writer() as client:
            listed = self._entry(client, version) is not None
            manifest.delete(client, self.collection, version)
            if self.embedded:
                # Readers that refresh now stop serving the version before points change.
                snapshot.bump_generation(self.settings.folder)
            stale = self._stored_with(client, version)
            if not listed and not stale:
                raise NotIndexedError(
                    f"Next.js {version} is not in the '{self.spec.name}' index; nothing to remove."
                )
            return self._detach(client, version, stale)

    # ----------------------------------------------------------------- internals

    @contextmanager
    def _writer(self) -> Iterator[QdrantClient]:
        if self._shared is not None:
            self._ensure_collections(self._shared)
            yield self._shared
            return
        folder = self.settings.folder
        with writer_lock(
            folder, timeout_seconds=self.settings.lock_timeout_seconds, on_wait=self._on_wait
        ):
            client = QdrantClient(path=str(folder))
            try:
                self._ensure_collections(client)
                yield client
            finally:
                client.close()

    def _reader(self) -> QdrantClient:
        """The client to read with; call with ``_read_lock`` held."""
        if self._shared is not None:
            return self._shared
        folder = self.settings.folder
        generation = snapshot.read_generation(folder)
        if self._snapshot_client is None or generation != self._snapshot_generation:
            path = snapshot.take_snapshot(folder)
            try:
                client = QdrantClient(path=str(path))
            except BaseException:
                snapshot.remove_snapshot(path)
                raise
            self._drop_snapshot()
            self._snapshot_client, self._snapshot_path = client, path
            self._snapshot_generation = generation
        return self._snapshot_client

    def _engine(self) -> SearchEngine:
        """The engine to search with; call with ``_read_lock`` held."""
        if self._shared is not None:
            return QdrantEngine(self._shared, self.collection)
        client = self._reader()
        if self._memory is None:
            self._memory = MemoryEngine(
                client, self.collection, sparse_uses_idf=self.spec.sparse_uses_idf
            )
        return self._memory

    def _drop_snapshot(self) -> None:
        self._memory = None
        if self._snapshot_client is not None:
            self._snapshot_client.close()
        if self._snapshot_path is not None:
            snapshot.remove_snapshot(self._snapshot_path)
        self._snapshot_client, self._snapshot_path = None, None
        self._snapshot_generation = -1

    def _entries(self, client: QdrantClient, collection: str | None) -> list[VersionInfo]:
        infos = manifest.entries(client, collection)
        if self._shared is None:
            # In a snapshot, trust "complete" only if the copy taken before the sections
            # agrees (see raggin_lsp.store.snapshot).
            before = {
                (i.collection, i.version)
                for i in manifest.entries(client, collection, source=snapshot.MANIFEST_BEFORE)
                if i.complete
            }
            infos = [
                i if not i.complete or (i.collection, i.version) in before else _incomplete(i)
                for i in infos
            ]
        return infos

    def _entry(self, client: QdrantClient, version: str) -> VersionInfo | None:
        for info in manifest.entries(client, self.collection):
            if info.version == version:
                return info
        return None

    def _ensure_collections(self, client: QdrantClient) -> None:
        manifest.ensure(
            client,
            shard_number=self.settings.shard_number,
            replication_factor=self.settings.replication_factor,
        )
        if client.collection_exists(self.collection):
            return
        client.create_collection(
            self.collection,
            vectors_config=vectors_config(self.spec),
            sparse_vectors_config=sparse_vectors_config(self.spec),
            shard_number=self.settings.shard_number,
            replication_factor=self.settings.replication_factor,
            metadata={"profile": self.spec.name, "fingerprint": self.spec.fingerprint},
        )
        with warnings.catch_warnings():
            # Local mode warns that payload indexes do nothing there; a server needs them.
            warnings.simplefilter("ignore", UserWarning)
            for field in KEYWORD_FIELDS:
                client.create_payload_index(
                    self.collection, field, models.PayloadSchemaType.KEYWORD
                )

    def _stored_versions(self, client: QdrantClient, ids: Sequence[str]) -> dict[str, list[str]]:
        """Which of ``ids`` are stored already, with the versions each belongs to."""
        found: dict[str, list[str]] = {}
        for start in range(0, len(ids), _ID_PAGE):
            records = client.retrieve(
                self.collection,
                ids=list(ids[start : start + _ID_PAGE]),
                with_payload=["versions"],
                with_vectors=False,
            )
            for record in records:
                found[str(record.id)] = list((record.payload or {}).get("versions", []))
        return found

    def _stored_with(self, client: QdrantClient, version: str) -> dict[str, list[str]]:
        return {
            str(record.id): list((record.payload or {}).get("versions", []))
            for record in _scroll(
                client, self.collection, _has_version(version), payload=["versions"]
            )
        }

    def _attach(self, client: QdrantClient, version: str, stored: dict[str, list[str]]) -> None:
        groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for pid, versions in stored.items():
            if version not in versions:
                groups[tuple(versions)].append(pid)
        for old, ids in groups.items():
            self._set_versions(client, sorted({*old, version}, key=version_key), ids)

    def _detach(self, client: QdrantClient, version: str, stored: dict[str, list[str]]) -> int:
        orphans = {pid for pid, versions in stored.items() if set(versions) <= {version}}
        groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for pid, versions in stored.items():
            if pid not in orphans and version in versions:
                groups[tuple(v for v in versions if v != version)].append(pid)
        for kept, ids in groups.items():
            self._set_versions(client, list(kept), ids)
        doomed = sorted(orphans)
        for start in range(0, len(doomed), _ID_PAGE):
            client.delete(
                self.collection,
                points_selector=models.PointIdsList(points=list(doomed[start : start + _ID_PAGE])),
                wait=True,
            )
        return len(orphans)

    def _set_versions(self, client: QdrantClient, versions: list[str], ids: list[str]) -> None:
        for start in range(0, len(ids), _ID_PAGE):
            client.set_payload(
                self.collection,
                payload={"versions": versions},
                points=list(ids[start : start + _ID_PAGE]),
                wait=True,
            )

    def _finish(
        self, client: QdrantClient, version: str, ids: set[str], *, started_at: float
    ) -> None:
        """Drop the version from sections it no longer has, then list it as complete."""
        stale = {pid: v for pid, v in self._stored_with(client, version).items() if pid not in ids}
        self._detach(client, version, stale)
        previous = self._entry(client, version)
        manifest.put(
            client,
            self.collection,
            self.spec,
            version,
            complete=True,
            sections=len(ids),
            started_at=previous.started_at if previous is not None else time.time(),
        )
        if self.embedded:
            snapshot.bump_generation(self.settings.folder)


class _Tracker:
    """Turns batch completions into :class:`IndexProgress` with an ETA from the embed rate."""

    def __init__(
        self, version: str, total: int, reused: int, started: float, sink: ProgressSink | None
    ) -> None:
        self.version, self.total, self.reused = version, total, reused
        self.embedded = 0
        self.started = started
        self.sink = sink
        self._work_started = time.monotonic()

    @property
    def done(self) -> int:
        return self.embedded + self.reused

    def report(self, embedded_now: int) -> None:
        self.embedded += embedded_now
        if self.sink is None:
            return
        now = time.monotonic()
        remaining = max(0, self.total - self.done)
        work = now - self._work_started
        eta = remaining * work / self.embedded if self.embedded else None
        if remaining == 0:
            eta = 0.0
        self.sink(
            IndexProgress(
                version=self.version,
                done=self.done,
                total=self.total,
                embedded=self.embedded,
                reused=self.reused,
                elapsed_seconds=now - self.started,
                eta_seconds=eta,
            )
        )


def _incomplete(info: VersionInfo) -> VersionInfo:
    return VersionInfo(
        version=info.version,
        complete=False,
        sections=info.sections,
        profile=info.profile,
        fingerprint=info.fingerprint,
        started_at=info.started_at,
        completed_at=None,
        collection=info.collection,
    )


def _unique_sections(sections: Iterable[Section]) -> dict[str, Section]:
    unique: dict[str, Section] = {}
    for section in sections:
        unique.setdefault(point_id(section), section)
    return unique


def _embed(batch: Sequence[Section], version: str, embedder: Embedder) -> list[models.PointStruct]:
    texts: list[str] = []
    spans: list[tuple[int, int]] = []
    for section in batch:
        own = texts_to_embed(section)
        spans.append((len(texts), len(own)))
        texts.extend(own)
    embeddings = embedder.embed_documents(texts)
    points = []
    for section, (start, count) in zip(batch, spans, strict=True):
        vectors = point_vectors(embeddings[start], embeddings[start + 1 : start + count])
        points.append(
            models.PointStruct(
                id=point_id(section), vector=vectors, payload=section_payload(section, [version])
            )
        )
    return points


def _has_version(version: str) -> models.Filter:
    return models.Filter(
        must=[models.FieldCondition(key="versions", match=models.MatchValue(value=version))]
    )


def _scroll(
    client: QdrantClient,
    collection: str,
    query_filter: models.Filter,
    *,
    vectors: bool = False,
    payload: bool | list[str] = True,
) -> Iterator[models.Record]:
    if not client.collection_exists(collection):
        return
    offset: models.ExtendedPointId | None = None
    while True:
        records, offset = client.scroll(
            collection,
            scroll_filter=query_filter,
            limit=_SCROLL_PAGE,
            offset=offset,
            with_payload=payload,
            with_vectors=vectors,
        )
        yield from records
        if offset is None:
            return


def _batched(items: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


__all__ = ["MANIFEST_COLLECTION", "DocsIndex"]

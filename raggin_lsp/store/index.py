"""The versioned docs index: one class hiding where the vectors live and who may write.

Two backends (:mod:`raggin_lsp.store.backends`): by default an embedded index run by
Qdrant's own engine in-process (Qdrant Edge; one shard per embedding profile, published
in immutable generations so that many editor windows and a CLI indexer work on one
folder at once, see :mod:`raggin_lsp.store.embedded`), or a Qdrant server or cluster
through qdrant-client when ``StoreSettings.url`` is set. Every kNN search, sparse IDF
scoring, filter, prefetch and RRF/DBSF fusion is executed by Qdrant in both cases.

Content addressing: a point's id is its section's content hash, so a section unchanged
between releases is embedded once and lists every version in its ``versions`` payload.
A killed write job leaves its points behind, unlisted; the next run finds them by id and
does not embed them again.
"""

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from raggin_lsp.corpus.model import Section
from raggin_lsp.corpus.reading_order import value_order
from raggin_lsp.embed.base import Embedder, LexicalEmbedder, ProfileSpec
from raggin_lsp.embed.catalog import DEFAULT_PROFILE
from raggin_lsp.errors import NotIndexedError
from raggin_lsp.store import transfer
from raggin_lsp.store.backends import EmbeddedBackend
from raggin_lsp.store.model import (
    CollectionStats,
    ExportVersionError,
    IndexInterrupted,
    IndexPhase,
    IndexProgress,
    IndexReport,
    ProfileMismatchError,
    VersionInfo,
)
from raggin_lsp.store.points import FusionMethod, Hit, Prefetches, QueryVector, StoredPoint
from raggin_lsp.store.schema import (
    MANIFEST_COLLECTION,
    SPARSE,
    TEXT,
    collection_name,
    point_id,
    point_vectors,
    section_payload,
    texts_to_embed,
    version_key,
)
from raggin_lsp.store.settings import StoreSettings
from raggin_lsp.store.views import Backend, WriteView

if TYPE_CHECKING:  # qdrant-client takes a second to import: only server users pay it
    from qdrant_client import QdrantClient

ProgressSink = Callable[[IndexProgress], None]
StopCheck = Callable[[], bool]
DenseGate = Callable[[], None]
# Seconds between two publications of the dense pass's progress (searches take in the
# sections whose vectors arrived since; each publication copies the shard once).
PUBLISH_SECONDS = 10.0
# Sections per batch of the lexical pass (BM25 only: cheap, so large batches).
_LEXICAL_BATCH = 512
# Sections handed to the embedder at once in the dense pass. The embedder sorts them by
# length before batching, so more at once means less padding (light profile, batch 8:
# 19% of the tokens it ran were padding with 16 sections, 7% with 64); the dense vectors
# are published by time (publish_seconds), not per slice.
DENSE_BATCH_SECTIONS = 64


class DocsIndex:
    """Open with :meth:`open`; close with :meth:`close` (or use it as a context manager)."""

    def __init__(
        self,
        settings: StoreSettings,
        spec: ProfileSpec,
        *,
        client: "QdrantClient | None" = None,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        self.settings = settings
        self.spec = spec
        self.collection = collection_name(spec)
        self._backend: Backend
        if client is not None or settings.url is not None:
            from qdrant_client import QdrantClient

            from raggin_lsp.store.server import ServerBackend

            if client is None:
                client = QdrantClient(url=settings.url, api_key=settings.api_key)
            self._backend = ServerBackend(settings, spec, self.collection, client)
        else:
            self._backend = EmbeddedBackend(settings, spec, self.collection, on_wait)
        self._read_lock = threading.RLock()

    @classmethod
    def open(
        cls,
        settings: StoreSettings,
        spec: ProfileSpec,
        *,
        client: "QdrantClient | None" = None,
        on_wait: Callable[[str], None] | None = None,
    ) -> "DocsIndex":
        return cls(settings, spec, client=client, on_wait=on_wait)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        with self._read_lock:
            self._backend.close()

    @property
    def embedded(self) -> bool:
        return isinstance(self._backend, EmbeddedBackend)

    # ----------------------------------------------------------------- reading

    def version_infos(self) -> list[VersionInfo]:
        """Manifest entries of this profile's collection, complete or not."""
        with self._read_lock:
            return self._backend.read().entries

    def versions(self) -> list[str]:
        """Complete versions (every vector stored), oldest first."""
        found = [info.version for info in self.version_infos() if info.complete]
        return sorted(found, key=version_key)

    def searchable_versions(self) -> list[str]:
        """Versions searches answer: complete ones and those searchable lexically while
        their dense vectors are being added, oldest first."""
        found = [info.version for info in self.version_infos() if info.searchable]
        return sorted(found, key=version_key)

    def version_info(self, version: str) -> VersionInfo | None:
        """``version``'s entry as the searches of this process see it."""
        return next((i for i in self.version_infos() if i.version == version), None)

    def require_version(self, version: str, *, partial: bool = False) -> None:
        """Raise :class:`NotIndexedError` (saying what to run) unless ``version`` is
        complete, or with ``partial`` at least searchable lexically."""
        available = self.searchable_versions() if partial else self.versions()
        if version in available:
            return
        held = ", ".join(available) if available else "none yet"
        profile = "" if self.spec.name == DEFAULT_PROFILE else f" --profile {self.spec.name}"
        started = [i for i in self.version_infos() if i.version == version and not i.complete]
        if started and started[0].lexical:
            message = (
                f"Next.js {version} is searchable lexically while its dense vectors are "
                f"added ({started[0].stage}); this needs it indexed completely. Finish it "
                f"with `raggin-lsp index {version}{profile}`; what was stored is reused."
            )
        elif started:
            message = (
                f"Indexing Next.js {version} for the '{self.spec.name}' profile was started "
                f"but not finished (indexed versions: {held}). Finish it with "
                f"`raggin-lsp index {version}{profile}`; what was stored is reused."
            )
        else:
            message = (
                f"Next.js {version} is not indexed for the '{self.spec.name}' profile "
                f"(indexed versions: {held}). Index it with `raggin-lsp index {version}{profile}`."
            )
        with self._read_lock:
            outdated = [
                info
                for info in self._backend.all_entries()
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
        pages: Sequence[str] | None = None,
        summaries: bool = False,
    ) -> list[Hit]:
        """Best points of ``version`` for one named vector, ranked by Qdrant (restricted to
        the points ``only`` and the pages ``pages`` when given)."""
        with self._read_lock:
            points = self._backend.read().points
            if points is None:
                return []
            return points.rank(name, query, version, routers, limit, only, pages, summaries)

    def fuse(
        self,
        method: FusionMethod,
        queries: Prefetches,
        version: str,
        routers: Sequence[str] | None,
        limit: int,
        candidates: int,
        weights: Sequence[float] | None = None,
        pages: Sequence[str] | None = None,
        summaries: bool = False,
    ) -> list[Hit]:
        """Per-vector candidates fused by Qdrant (RRF, optionally weighted, or DBSF)."""
        with self._read_lock:
            points = self._backend.read().points
            if points is None:
                return []
            return points.fuse(
                method, queries, version, routers, limit, candidates, weights, pages, summaries
            )

    def stats(self) -> list[CollectionStats]:
        """Every raggin collection in this store: points and versions with section counts."""
        with self._read_lock:
            by_collection: dict[str, list[VersionInfo]] = defaultdict(list)
            for info in self._backend.all_entries():
                by_collection[info.collection].append(info)
            by_collection.setdefault(self.collection, [])
            counts = self._backend.counts()
            stats = []
            for name in sorted(by_collection):
                infos = sorted(by_collection[name], key=lambda info: version_key(info.version))
                stats.append(
                    CollectionStats(
                        collection=name,
                        points=counts.get(name, 0),
                        versions={i.version: i.sections for i in infos if i.complete},
                        incomplete=tuple(i.version for i in infos if not i.complete),
                        location=self.settings.location,
                    )
                )
            return stats

    def payloads_of(self, version: str, *, partial: bool = False) -> list[Mapping[str, Any]]:
        """The payload of every stored section of a complete ``version`` (no vectors);
        with ``partial`` also of a version searchable lexically (its payloads are final)."""
        self.require_version(version, partial=partial)
        with self._read_lock:
            points = self._backend.read().points
            if points is None:
                return []
            return [point.payload for point in points.with_version(version)]

    def points_of(self, version: str) -> Iterator[StoredPoint]:
        """Every stored point of a complete ``version``, with its vectors."""
        self.require_version(version)
        with self._read_lock:
            points = self._backend.read().points
            if points is not None:
                yield from points.with_version(version, vectors=True)

    def export_version(self, version: str, file: Path) -> int:
        """Write ``version``'s points (vectors and payload) to ``file``; returns their count.

        The file ends with the sha256 of its content (see :mod:`raggin_lsp.store.transfer`)
        and appears under its name only once complete.
        """
        self.require_version(version)
        with self._read_lock:
            points = self._backend.read().points
            total = points.count(version) if points is not None else 0
            header = transfer.ExportHeader(
                profile=self.spec.name,
                fingerprint=self.spec.fingerprint,
                dense_dim=self.spec.dense_dim,
                version=version,
                sections=total,
            )
            writer = transfer.ExportWriter(file, header)
            try:
                for point in self.points_of(version):
                    writer.add(point)
                writer.finish()
            except BaseException:
                writer.abandon()
                raise
            return writer.points

    # ----------------------------------------------------------------- writing

    def index_version(
        self,
        version: str,
        sections: Sequence[Section],
        embedder: Embedder,
        *,
        progress: ProgressSink | None = None,
        should_stop: StopCheck | None = None,
        batch_size: int = DENSE_BATCH_SECTIONS,
        publish_seconds: float = PUBLISH_SECONDS,
        dense_gate: DenseGate | None = None,
    ) -> IndexReport:
        """Store ``sections`` as ``version``; embeds only what is not stored yet.

        With a profile whose sparse vectors need no neural model
        (:class:`~raggin_lsp.embed.base.LexicalEmbedder`) the job runs in two passes: every
        section is stored with its sparse vector and the version becomes searchable
        lexically (``VersionInfo.lexical``) within seconds; dense vectors then follow,
        most valuable pages first (:mod:`raggin_lsp.corpus.reading_order`), published
        every ``publish_seconds`` so that searches take them in as they arrive. With other
        profiles the version becomes searchable only when every section is stored.

        With ``should_stop`` returning true the job stops between batches and raises
        :class:`IndexInterrupted`; what was stored is kept for the next run, which
        computes no stored vector again. ``dense_gate`` is called before each dense batch
        and may block (tests hold the dense pass there).
        """
        if embedder.spec.fingerprint != self.spec.fingerprint:
            raise ProfileMismatchError(
                f"The embedder '{embedder.spec.name}' does not match this index's profile "
                f"'{self.spec.name}' (different model fingerprint)."
            )
        started = time.monotonic()
        unique = _unique_sections(sections)
        total = len(unique)
        lexical_first = isinstance(embedder, LexicalEmbedder)
        with self._backend.writing() as view:
            entry = _mark_started(view, version, total)
            existing = view.points.versions_of(list(unique))
            _attach(view, version, existing)
            new = [(pid, section) for pid, section in unique.items() if pid not in existing]
            stored = set(existing)
            if lexical_first and not entry.lexical:
                assert isinstance(embedder, LexicalEmbedder)
                tracker = _Tracker(version, total, len(existing), started, progress, "lexical")
                tracker.report(0)
                for start in range(0, len(new), _LEXICAL_BATCH):
                    _stop_if_asked(should_stop, version, tracker, total, lexical=False)
                    chunk = new[start : start + _LEXICAL_BATCH]
                    # Durable through Edge's write-ahead log; one checkpoint at the end.
                    view.points.upsert(_lexical_points(chunk, version, embedder))
                    stored.update(pid for pid, _section in chunk)
                    tracker.report(len(chunk))
                _detach_stale(view, version, set(unique))
                view.checkpoint()
            lacking = set(view.points.lacking(version, TEXT)) & set(unique)
            todo = value_order(
                [s for pid, s in unique.items() if pid in lacking or pid not in stored]
            )
            tracker = _Tracker(version, total, total - len(todo), started, progress, "dense")
            tracker.searchable = lexical_first
            if lexical_first:
                _put_lexical(view, version, total, tracker.done, entry.started_at)
                view.publish()
            tracker.report(0)
            published = time.monotonic()
            for start in range(0, len(todo), max(1, batch_size)):
                _stop_if_asked(should_stop, version, tracker, total, lexical=lexical_first)
                if dense_gate is not None:
                    dense_gate()
                batch = todo[start : start + batch_size]
                points = _embed(batch, version, embedder)
                view.points.set_vectors([p for p in points if p.id in stored])
                view.points.upsert([p for p in points if p.id not in stored])
                view.checkpoint()
                tracker.report(len(batch))
                if lexical_first and time.monotonic() - published >= publish_seconds:
                    _put_lexical(view, version, total, tracker.done, entry.started_at)
                    view.publish()
                    published = time.monotonic()
            _finish(view, version, set(unique))
        return IndexReport(
            version=version,
            sections_total=total,
            embedded=len(todo),
            reused=total - len(todo),
            seconds=time.monotonic() - started,
        )

    def import_file(
        self,
        file: Path,
        *,
        progress: ProgressSink | None = None,
        should_stop: StopCheck | None = None,
        batch_size: int = 256,
        version: str | None = None,
        name: str | None = None,
    ) -> IndexReport:
        """Load an export made with the same profile and model; no model runs.

        Everything is checked before anything is written: the profile and model, the
        Next.js ``version`` when given, and the file's sha256 checksum. ``name`` is how
        messages call the file (the URL it was downloaded from).
        """
        shown = name or str(file)
        header = transfer.read_header(file, self.spec, name=shown)
        if version is not None and version != header.version:
            raise ExportVersionError(
                f"{shown} holds the Next.js {header.version} docs, not {version}: run "
                f"`raggin-lsp index {header.version} --from {shown}`, or pick the export of "
                f"{version}."
            )
        transfer.verify(file, header, name=shown)
        points = (transfer.decode_point(data) for data in transfer.read_points(file))
        return self.import_points(
            header.version,
            header.sections,
            points,
            progress=progress,
            should_stop=should_stop,
            batch_size=batch_size,
            source=shown,
        )

    def push_version(
        self,
        version: str,
        target: "DocsIndex",
        *,
        progress: ProgressSink | None = None,
        should_stop: StopCheck | None = None,
    ) -> IndexReport:
        """Copy a complete ``version`` with its vectors into ``target`` (e.g. a server)."""
        if target.spec.fingerprint != self.spec.fingerprint:
            raise ProfileMismatchError(
                f"Cannot push vectors of the '{self.spec.name}' profile into an index of the "
                f"'{target.spec.name}' profile (different model fingerprint)."
            )
        self.require_version(version)
        infos = {info.version: info for info in self.version_infos()}
        return target.import_points(
            version,
            infos[version].sections,
            self.points_of(version),
            progress=progress,
            should_stop=should_stop,
            source=self.settings.location,
        )

    def import_points(
        self,
        version: str,
        sections: int,
        points: Iterable[StoredPoint],
        *,
        progress: ProgressSink | None = None,
        should_stop: StopCheck | None = None,
        batch_size: int = 256,
        source: str = "another index",
    ) -> IndexReport:
        """Store already-embedded points as ``version`` (import, push to a server)."""
        started = time.monotonic()
        with self._backend.writing() as view:
            _mark_started(view, version, sections)
            tracker = _Tracker(version, sections, 0, started, progress)
            seen: set[str] = set()
            embedded = reused = 0
            for batch in _batched(points, max(1, batch_size)):
                if should_stop is not None and should_stop():
                    raise IndexInterrupted(
                        f"Importing Next.js {version} from {source} was stopped; run the "
                        "same command again to finish it."
                    )
                existing = view.points.versions_of([point.id for point in batch])
                _attach(view, version, existing)
                fresh = [
                    StoredPoint(point.id, point.vectors, {**point.payload, "versions": [version]})
                    for point in batch
                    if point.id not in existing
                ]
                view.points.upsert(fresh)
                view.checkpoint()
                seen.update(point.id for point in batch)
                embedded += len(fresh)
                reused += len(batch) - len(fresh)
                tracker.reused = reused
                tracker.report(len(fresh))
            _finish(view, version, seen)
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
        with self._backend.writing() as view:
            listed = view.entry(version) is not None
            view.delete_entry(version)
            stale = {
                p.id: list(p.payload.get("versions", [])) for p in view.points.with_version(version)
            }
            if not listed and not stale:
                raise NotIndexedError(
                    f"Next.js {version} is not in the '{self.spec.name}' index; nothing to remove."
                )
            return _detach(view, version, stale)


# --------------------------------------------------------------------- job steps


def _mark_started(view: WriteView, version: str, sections: int) -> VersionInfo:
    """List ``version`` as started (keeping what an earlier run reached); its entry."""
    previous = view.entry(version)
    if previous is None or not previous.complete:
        lexical = previous is not None and previous.lexical and previous.sections == sections
        view.put_entry(
            version,
            complete=False,
            sections=sections,
            started_at=previous.started_at if lexical and previous else time.time(),
            lexical=lexical,
            dense=previous.dense if lexical and previous else 0,
        )
    entry = view.entry(version)
    assert entry is not None
    return entry


def _put_lexical(view: WriteView, version: str, sections: int, dense: int, since: float) -> None:
    view.put_entry(
        version, complete=False, sections=sections, started_at=since, lexical=True, dense=dense
    )


def _stop_if_asked(
    should_stop: StopCheck | None, version: str, tracker: "_Tracker", total: int, *, lexical: bool
) -> None:
    if should_stop is None or not should_stop():
        return
    if lexical:
        raise IndexInterrupted(
            f"Indexing Next.js {version} was stopped with its dense vectors "
            f"{100 * tracker.done // max(1, total)}% done; it is searchable lexically "
            f"meanwhile. Nothing is lost: run `raggin-lsp index {version}` again to finish it."
        )
    raise IndexInterrupted(
        f"Indexing Next.js {version} was stopped after {tracker.done} of "
        f"{total} sections. Nothing is lost: run `raggin-lsp index "
        f"{version}` again to finish it."
    )


def _attach(view: WriteView, version: str, stored: dict[str, list[str]]) -> None:
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for pid, versions in stored.items():
        if version not in versions:
            groups[tuple(versions)].append(pid)
    for old, ids in groups.items():
        view.points.set_versions(ids, sorted({*old, version}, key=version_key))


def _detach(view: WriteView, version: str, stored: dict[str, list[str]]) -> int:
    orphans = {pid for pid, versions in stored.items() if set(versions) <= {version}}
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for pid, versions in stored.items():
        if pid not in orphans and version in versions:
            groups[tuple(v for v in versions if v != version)].append(pid)
    for kept, ids in groups.items():
        view.points.set_versions(ids, list(kept))
    view.points.delete(sorted(orphans))
    return len(orphans)


def _detach_stale(view: WriteView, version: str, ids: set[str]) -> None:
    """Drop the version from the stored sections it no longer has."""
    stale = {
        p.id: list(p.payload.get("versions", []))
        for p in view.points.with_version(version)
        if p.id not in ids
    }
    _detach(view, version, stale)


def _finish(view: WriteView, version: str, ids: set[str]) -> None:
    """Drop the version from sections it no longer has, then list it as complete."""
    _detach_stale(view, version, ids)
    previous = view.entry(version)
    view.put_entry(
        version,
        complete=True,
        sections=len(ids),
        started_at=previous.started_at if previous is not None else time.time(),
    )


class _Tracker:
    """Turns batch completions into :class:`IndexProgress` with an ETA from the embed rate."""

    def __init__(
        self,
        version: str,
        total: int,
        reused: int,
        started: float,
        sink: ProgressSink | None,
        phase: IndexPhase = "dense",
    ) -> None:
        self.version, self.total, self.reused = version, total, reused
        self.phase: IndexPhase = phase
        self.searchable = False
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
                phase=self.phase,
                searchable=self.searchable,
            )
        )


def _unique_sections(sections: Iterable[Section]) -> dict[str, Section]:
    unique: dict[str, Section] = {}
    for section in sections:
        unique.setdefault(point_id(section), section)
    return unique


def _embed(batch: Sequence[Section], version: str, embedder: Embedder) -> list[StoredPoint]:
    texts: list[str] = []
    spans: list[tuple[int, int]] = []
    for section in batch:
        own = texts_to_embed(section)
        spans.append((len(texts), len(own)))
        texts.extend(own)
    embeddings = embedder.embed_documents(texts)
    return [
        StoredPoint(
            id=point_id(section),
            vectors=point_vectors(embeddings[start], embeddings[start + 1 : start + count]),
            payload=section_payload(section, [version]),
        )
        for section, (start, count) in zip(batch, spans, strict=True)
    ]


def _lexical_points(
    batch: Sequence[tuple[str, Section]], version: str, embedder: LexicalEmbedder
) -> list[StoredPoint]:
    """Sections (with their point ids) with their sparse vector only: no neural model."""
    sparse = embedder.embed_sparse([section.embedding_text() for _pid, section in batch])
    return [
        StoredPoint(
            id=pid,
            vectors={SPARSE: vector} if vector.indices else {},
            payload=section_payload(section, [version]),
        )
        for (pid, section), vector in zip(batch, sparse, strict=True)
    ]


def _batched(items: Iterable[StoredPoint], size: int) -> Iterator[list[StoredPoint]]:
    batch: list[StoredPoint] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


__all__ = ["MANIFEST_COLLECTION", "DocsIndex"]

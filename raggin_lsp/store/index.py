"""The versioned docs index: one class hiding where the vectors live and who may write.

Two backends (:mod:`raggin_lsp.store.backends`): by default an embedded index run by
Qdrant's own engine in-process (Qdrant Edge; one shard per embedding profile, published
in immutable generations so that many editor windows and a CLI indexer work on one
folder at once, see :mod:`raggin_lsp.store.embedded`), or a Qdrant server or cluster
through qdrant-client when ``StoreSettings.url`` is set. Every kNN search, sparse IDF
scoring, filter, prefetch and RRF/DBSF fusion is executed by Qdrant in both cases.

This class is the facade the rest of the code uses: it reads and searches itself, and
runs its write jobs (:mod:`raggin_lsp.store.jobs`) and the bookkeeping of which versions
each point and the manifest list (:mod:`raggin_lsp.store.membership`) on the backend.
"""

import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from raggin_lsp.corpus.model import Section
from raggin_lsp.embed.base import Embedder, ProfileSpec
from raggin_lsp.embed.vector_cache import VectorCache
from raggin_lsp.errors import NotIndexedError
from raggin_lsp.store import jobs, membership, transfer
from raggin_lsp.store.backends import EmbeddedBackend
from raggin_lsp.store.jobs import DenseGate, ProgressSink, StopCheck
from raggin_lsp.store.model import CollectionStats, IndexReport, ProfileMismatchError, VersionInfo
from raggin_lsp.store.points import FusionMethod, Hit, Prefetches, QueryVector, Scope, StoredPoint
from raggin_lsp.store.schema import MANIFEST_COLLECTION, collection_name, version_key
from raggin_lsp.store.settings import StoreSettings
from raggin_lsp.store.views import Backend

if TYPE_CHECKING:  # qdrant-client takes a second to import: only server users pay it
    from qdrant_client import QdrantClient


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
        infos = self.version_infos()
        with self._read_lock:
            every = self._backend.all_entries()
        message = membership.not_indexed_message(
            version, self.spec.name, self.collection, available, infos, every
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
            scope = Scope(version, routers, only, pages, summaries)
            return points.rank(name, query, scope, limit)

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
            scope = Scope(version, routers, None, pages, summaries)
            return points.fuse(method, queries, scope, limit, candidates, weights)

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
                        stages={i.version: i.stage for i in infos if not i.complete},
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
            return transfer.write_export(file, header, self.points_of(version))

    # ----------------------------------------------------------------- writing

    def index_version(
        self,
        version: str,
        sections: Sequence[Section],
        embedder: Embedder,
        *,
        progress: ProgressSink | None = None,
        should_stop: StopCheck | None = None,
        batch_size: int = jobs.DENSE_BATCH_SECTIONS,
        publish_seconds: float = jobs.PUBLISH_SECONDS,
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
        path = self._backend.vector_cache_path
        cache = VectorCache(path) if path is not None else None
        try:
            return jobs.index_sections(
                self._backend,
                version,
                sections,
                embedder,
                progress=progress,
                should_stop=should_stop,
                batch_size=batch_size,
                publish_seconds=publish_seconds,
                dense_gate=dense_gate,
                vector_cache=cache,
            )
        finally:
            if cache is not None:
                cache.close()

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
        header, points = transfer.read_export(file, self.spec, version=version, name=shown)
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
        return jobs.store_points(
            self._backend,
            version,
            sections,
            points,
            progress=progress,
            should_stop=should_stop,
            batch_size=batch_size,
            source=source,
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
            return membership.detach(view, version, stale)


__all__ = ["MANIFEST_COLLECTION", "DocsIndex"]

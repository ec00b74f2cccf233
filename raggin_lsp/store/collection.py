"""What the Qdrant Edge and the Qdrant server collections have in common.

Both answer the same operations with the same guards, id paging and result order, and
translate the store's neutral types (:mod:`raggin_lsp.store.points`) to and from their
engine's own vectors, records and scored points, which differ in class but not in
shape. :class:`Collection` holds all of that once; a subclass only sends its engine's
requests (:class:`raggin_lsp.store.edge.EdgeCollection`,
:class:`raggin_lsp.store.server.ServerCollection`).
"""

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from raggin_lsp.embed.base import SparseVector
from raggin_lsp.store.points import (
    FusionMethod,
    Hit,
    Prefetches,
    QueryVector,
    Scope,
    StoredPoint,
    StoredVector,
    dense_list,
    in_rank_order,
    prefetch_items,
)

# Point ids per request when setting payloads, deleting or retrieving by id.
ID_PAGE = 256
_Record = TypeVar("_Record")


@dataclass(frozen=True)
class Fusion:
    """A fused query: one prefetch of ``candidates`` per (named vector, query), fused by
    ``method`` (RRF, weighted when ``weights`` are given, or DBSF)."""

    method: FusionMethod
    prefetches: list[tuple[str, QueryVector]]
    candidates: int
    weights: Sequence[float] | None


class Collection(ABC):
    """One profile's points in one engine, in the store's neutral types."""

    # The engine's sparse vector class, built with ``indices=`` and ``values=``.
    sparse: ClassVar[type[Any]]

    def exists(self) -> bool:
        """Whether there is a collection to read (an embedded shard always is one)."""
        return True

    # ----------------------------------------------------------------- writing

    @abstractmethod
    def upsert(self, points: Sequence[StoredPoint]) -> None: ...

    @abstractmethod
    def set_vectors(self, points: Sequence[StoredPoint]) -> None:
        """Add or replace the named vectors of stored points (payload and others kept)."""

    def set_versions(self, ids: Sequence[str], versions: Sequence[str]) -> None:
        for page in in_pages(ids, ID_PAGE):
            self._set_payload(page, {"versions": list(versions)})

    def delete(self, ids: Sequence[str]) -> None:
        for page in in_pages(ids, ID_PAGE):
            self._delete(page)

    # ----------------------------------------------------------------- reading

    @abstractmethod
    def count(self, version: str | None = None, *, having: str | None = None) -> int:
        """Points (of ``version``; holding the named vector ``having``) stored."""

    def lacking(self, version: str, name: str) -> list[str]:
        """Ids of ``version``'s points that have no ``name`` vector yet."""
        if not self.exists():
            return []
        records = self._scan(self._lacking_filter(version, name), payload=False)
        return [str(record.id) for record in records]

    def versions_of(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """The versions each stored point of ``ids`` lists (absent ids are left out)."""
        found: dict[str, list[str]] = {}
        for page in in_pages(ids, ID_PAGE):
            for record in self._retrieve_versions(page):
                found[str(record.id)] = list((record.payload or {}).get("versions", []))
        return found

    def with_version(self, version: str | None, *, vectors: bool = False) -> Iterator[StoredPoint]:
        """Every point listing ``version`` (every point at all when None): payload
        always, vectors when asked."""
        if not self.exists():
            return
        query_filter = self._filter(Scope(version, summaries=None))
        for record in self._scan(query_filter, payload=True, vectors=vectors):
            yield StoredPoint(
                id=str(record.id),
                vectors=neutral_vectors(record.vector, self.sparse) if vectors else {},
                payload=dict(record.payload or {}),
            )

    def rank(self, name: str, query: QueryVector, scope: Scope, limit: int) -> list[Hit]:
        """The best ``limit`` points of ``scope`` for one named vector."""
        if limit <= 0 or scope.empty:
            return []
        return _hits(self._nearest(name, query, scope, limit))

    def fuse(
        self,
        method: FusionMethod,
        queries: Prefetches,
        scope: Scope,
        limit: int,
        candidates: int,
        weights: Sequence[float] | None = None,
    ) -> list[Hit]:
        """The best ``limit`` points of ``scope``, per-vector candidates fused."""
        if limit <= 0 or not queries or scope.empty:
            return []
        fusion = Fusion(method, prefetch_items(queries), candidates, weights)
        return _hits(self._fused(fusion, scope, limit))

    # ----------------------------------------------------- the engine's requests

    @abstractmethod
    def _filter(self, scope: Scope) -> Any:
        """The engine's filter selecting the points of ``scope``."""

    @abstractmethod
    def _lacking_filter(self, version: str, name: str) -> Any:
        """The engine's filter selecting ``version``'s points without a ``name`` vector."""

    @abstractmethod
    def _scan(self, query_filter: Any, *, payload: bool, vectors: bool = False) -> Iterator[Any]:
        """Every record ``query_filter`` selects, read page by page (see :func:`scrolled`)."""

    @abstractmethod
    def _retrieve_versions(self, ids: list[str]) -> Sequence[Any]:
        """The records of ``ids`` with their ``versions`` payload only."""

    @abstractmethod
    def _set_payload(self, ids: list[str], payload: dict[str, Any]) -> None: ...

    @abstractmethod
    def _delete(self, ids: list[str]) -> None: ...

    @abstractmethod
    def _nearest(self, name: str, query: QueryVector, scope: Scope, limit: int) -> Sequence[Any]:
        """The engine's scored points for one named vector."""

    @abstractmethod
    def _fused(self, fusion: Fusion, scope: Scope, limit: int) -> Sequence[Any]:
        """The engine's scored points for a fused query."""

    # -------------------------------------------------------------- translation

    def engine_query(self, query: QueryVector) -> Any:
        """A query vector in the engine's types."""
        if isinstance(query, SparseVector):
            return self.sparse(indices=list(query.indices), values=list(query.values))
        return dense_list(query)

    def engine_vectors(self, vectors: Mapping[str, StoredVector]) -> dict[str, Any]:
        """A point's named vectors in the engine's types."""
        return {
            name: (
                self.sparse(indices=list(vector.indices), values=list(vector.values))
                if isinstance(vector, SparseVector)
                else list(vector)
            )
            for name, vector in vectors.items()
        }


def in_pages(ids: Sequence[str], size: int) -> Iterator[list[str]]:
    """``ids`` in requests of at most ``size``."""
    for start in range(0, len(ids), size):
        yield list(ids[start : start + size])


def scrolled(scroll: Callable[[Any], tuple[Sequence[_Record], Any]]) -> Iterator[_Record]:
    """Every record of a paged scroll; ``scroll(offset)`` returns one page and the offset
    of the next (None after the last page; the first call gets None)."""
    offset: Any = None
    while True:
        records, offset = scroll(offset)
        yield from records
        if offset is None:
            return


def neutral_vectors(vector: Any, sparse: type[Any]) -> dict[str, StoredVector]:
    """An engine record's named vectors as stored vectors (``sparse``: its sparse class)."""
    if not isinstance(vector, dict):
        return {}
    neutral: dict[str, StoredVector] = {}
    for name, value in vector.items():
        if isinstance(value, sparse):
            neutral[name] = SparseVector(
                indices=tuple(int(i) for i in value.indices),
                values=tuple(float(v) for v in value.values),
            )
        elif isinstance(value, list):
            neutral[name] = [float(v) for v in value]
    return neutral


def _hits(points: Sequence[Any]) -> list[Hit]:
    return in_rank_order(
        [Hit(id=str(p.id), score=float(p.score), payload=p.payload or {}) for p in points]
    )

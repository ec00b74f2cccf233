"""The store's own vocabulary, shared by the Qdrant Edge and qdrant-client backends.

A :class:`StoredPoint` is a section as stored (id, named vectors, payload) and a
:class:`Hit` is one scored search result. Neither carries a Qdrant type, so the code above
the store (retrieval, export files) does not care which engine answered. The helpers
at the end are the translation both backends share: their vectors, records and scored
points differ in class but not in shape.
"""

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt

from raggin_lsp.embed.base import SparseVector

FusionMethod = Literal["rrf", "dbsf"]
FUSION_METHODS: tuple[FusionMethod, ...] = ("rrf", "dbsf")
QueryVector = npt.NDArray[np.float32] | SparseVector
# A stored named vector: dense as a list of floats, sparse as our SparseVector.
StoredVector = list[float] | SparseVector
RRF_K = 2  # Qdrant's default ranking constant; Edge needs it spelled out.
# What a fused query prefetches: one query per named vector, or (name, query) pairs when a
# named vector is queried more than once (sub-queries of one question).
Prefetches = Mapping[str, QueryVector] | Sequence[tuple[str, QueryVector]]
# An engine's sparse vector class (Edge's or qdrant-client's): called with indices, values.
SparseClass = Callable[..., Any]
_Record = TypeVar("_Record")


@dataclass(frozen=True)
class Hit:
    id: str
    score: float
    payload: Mapping[str, Any]


@dataclass(frozen=True)
class StoredPoint:
    id: str
    vectors: Mapping[str, StoredVector]
    payload: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Scope:
    """Which points a search or a scan looks at: those listing ``version`` (every point
    when None), of these ``routers``, point ids ``only`` and ``pages`` when given; the
    sections, or with ``summaries`` the pages' outline points (None: both, for upkeep)."""

    version: str | None
    routers: Sequence[str] | None = None
    only: Sequence[str] | None = None
    pages: Sequence[str] | None = None
    summaries: bool | None = False

    @property
    def empty(self) -> bool:
        """No point can match: an empty list of ids or of pages was given."""
        return (self.only is not None and not self.only) or (
            self.pages is not None and not self.pages
        )


def in_rank_order(hits: list[Hit]) -> list[Hit]:
    """Best first, equal scores by id. An App/Pages twin's sections carry the same text,
    so they score exactly alike, and the engine returns such ties in an order that
    changes between processes; ordering them by id makes every search reproducible."""
    return sorted(hits, key=lambda hit: (-hit.score, hit.id))


def prefetch_items(queries: Prefetches) -> list[tuple[str, QueryVector]]:
    return list(queries.items()) if isinstance(queries, Mapping) else list(queries)


def dense_list(vector: npt.NDArray[np.float32] | list[float]) -> list[float]:
    return [float(value) for value in vector]


# ------------------------------------------------------------- engine translation


def engine_query(query: QueryVector, sparse: SparseClass) -> Any:
    """A query vector in an engine's types."""
    if isinstance(query, SparseVector):
        return sparse(indices=list(query.indices), values=list(query.values))
    return dense_list(query)


def engine_vectors(vectors: Mapping[str, StoredVector], sparse: SparseClass) -> dict[str, Any]:
    """A point's named vectors in an engine's types."""
    return {
        name: (
            sparse(indices=list(vector.indices), values=list(vector.values))
            if isinstance(vector, SparseVector)
            else list(vector)
        )
        for name, vector in vectors.items()
    }


def stored_point(record: Any, sparse: type[Any], *, vectors: bool) -> StoredPoint:
    """An engine's record (id, payload, its vectors when ``vectors``) as a stored point."""
    return StoredPoint(
        id=str(record.id),
        vectors=_neutral_vectors(record.vector, sparse) if vectors else {},
        payload=dict(record.payload or {}),
    )


def listed_versions(records: Sequence[Any]) -> dict[str, list[str]]:
    """The ``versions`` payload of each of an engine's records, by point id."""
    return {str(record.id): list((record.payload or {}).get("versions", [])) for record in records}


def hit(point: Any) -> Hit:
    """An engine's scored point as a :class:`Hit`."""
    return Hit(id=str(point.id), score=float(point.score), payload=point.payload or {})


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


def _neutral_vectors(vector: Any, sparse: type[Any]) -> dict[str, StoredVector]:
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

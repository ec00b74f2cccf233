"""The store's own vocabulary, shared by the Qdrant Edge and qdrant-client backends.

A :class:`StoredPoint` is a section as stored (id, named vectors, payload) and a
:class:`Hit` is one scored search result. Neither carries a Qdrant type, so the code above
the store (retrieval, export files) does not care which engine answered.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

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

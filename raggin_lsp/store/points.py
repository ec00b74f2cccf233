"""The store's own vocabulary, shared by the Qdrant Edge and qdrant-client backends.

A :class:`StoredPoint` is a section as stored (id, named vectors, payload) and a
:class:`Hit` is one scored search result. Neither carries a Qdrant type, so the code above
the store (retrieval, export files) does not care which engine answered.
"""

from collections.abc import Mapping
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


def dense_list(vector: npt.NDArray[np.float32] | list[float]) -> list[float]:
    return [float(value) for value in vector]

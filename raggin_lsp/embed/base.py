"""The one interface every embedding profile offers.

A profile turns texts into a dense vector and a sparse (lexical) vector. Documents and
queries may be treated differently by a model, so they have separate calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

if TYPE_CHECKING:  # type hints only: the catalog and settings import this without numpy
    import numpy as np
    import numpy.typing as npt

    DenseVector: TypeAlias = npt.NDArray[np.float32]


@dataclass(frozen=True)
class SparseVector:
    indices: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True)
class Embedding:
    dense: DenseVector
    sparse: SparseVector


@dataclass(frozen=True)
class ProfileSpec:
    """What the store needs to know about a profile, without loading its model."""

    name: str  # "bge-m3" or "light"
    dense_dim: int
    chunk_tokens: int  # section token budget suited to the model
    sparse_uses_idf: bool  # BM25-style term frequencies need Qdrant's IDF modifier
    fingerprint: str  # changes whenever vectors would change (model files, settings)
    # None: a section's dense vector embeds its whole text. A number: the heading path and
    # each paragraph are embedded alone and averaged by tokens, the heading counting this
    # many times (raggin_lsp.store.schema.dense_units).
    heading_weight: float | None = None


# Progress callbacks receive (items done, items total).
ProgressCallback = Callable[[int, int], None]


class Embedder(Protocol):
    spec: ProfileSpec

    def embed_documents(
        self, texts: Sequence[str], *, progress: ProgressCallback | None = None
    ) -> list[Embedding]: ...

    def embed_query(self, text: str, *, sparse_text: str | None = None) -> Embedding:
        """The dense vector of ``text``; the sparse one of ``sparse_text`` when given (a
        long question's full text, while ``text`` is its focus for the dense model)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens the model would see for ``text`` (used to size chunks)."""
        ...


@runtime_checkable
class LexicalEmbedder(Protocol):
    """A profile whose sparse vectors need no neural model (BM25 term weights): they take
    seconds for a whole version, so a version can be searched lexically long before its
    dense vectors are in. ``embed_sparse`` gives the very vectors ``embed_documents`` does."""

    def embed_sparse(self, texts: Sequence[str]) -> list[SparseVector]: ...

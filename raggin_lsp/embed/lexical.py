"""BGE-M3's two vectors from one forward pass: CLS dense and lexical (sparse) weights.

Matches FlagEmbedding's ``BGEM3FlagModel``: dense is the normalised hidden state of the
first token; the lexical weight of a token is ``relu(h @ w + b)``, a token id repeated
in the text keeps its largest weight, and the special tokens (cls, eos, pad, unk) are
dropped, as are zero weights.
"""

from collections.abc import Collection

import numpy as np
import numpy.typing as npt

from raggin_lsp.embed.base import SparseVector

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]


def cls_dense(hidden: FloatArray) -> FloatArray:
    """[batch, seq, H] -> [batch, H]: the first token's vector, L2-normalised."""
    cls: FloatArray = hidden[:, 0, :].astype(np.float32)
    norms = np.linalg.norm(cls, axis=1, keepdims=True)
    normalised: FloatArray = (cls / np.maximum(norms, 1e-12)).astype(np.float32)
    return normalised


def lexical_weights(
    hidden: FloatArray,
    input_ids: IntArray,
    attention_mask: IntArray,
    weight: FloatArray,
    bias: float,
    special_ids: Collection[int],
) -> list[SparseVector]:
    """One sparse vector per text, indices sorted, from the same hidden states."""
    scores = np.maximum(hidden.astype(np.float32) @ weight + np.float32(bias), 0.0)
    vectors: list[SparseVector] = []
    for row_scores, row_ids, row_mask in zip(scores, input_ids, attention_mask, strict=True):
        best: dict[int, float] = {}
        for token_id, score, seen in zip(
            row_ids.tolist(), row_scores.tolist(), row_mask.tolist(), strict=True
        ):
            if not seen or token_id in special_ids or score <= 0.0:
                continue
            if score > best.get(token_id, 0.0):
                best[token_id] = score
        indices = sorted(best)
        vectors.append(SparseVector(indices=tuple(indices), values=tuple(best[i] for i in indices)))
    return vectors

"""Batches of similar length, so a short text is not padded to the longest in its batch.

Transformer cost grows with the padded length of a batch, and documentation sections
vary from one line to a page; sorting by length before batching saves most of the
padding. A token budget per batch keeps a run of very long texts (an unsplittable code
block, say) from multiplying the attention memory by the batch size. Results are put
back in input order.
"""

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar, cast

from raggin_lsp.embed.base import ProgressCallback

if TYPE_CHECKING:
    from tokenizers import Tokenizer

T = TypeVar("T")


def length_sorted_batches(
    lengths: Sequence[int], batch_size: int, *, max_batch_tokens: int | None = None
) -> list[list[int]]:
    """Indices into the input, grouped into batches of similar length (longest first).

    A batch holds at most ``batch_size`` texts and, when ``max_batch_tokens`` is given,
    at most that many tokens once padded to its longest text (a longer text goes alone).
    Longest first makes the first batch the most memory-hungry, so an out-of-memory
    failure shows up at once rather than at the end of a long run.
    """
    if batch_size <= 0:
        raise ValueError("batch_size must be positive")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    for index in order:
        current = batches[-1] if batches else None
        fits = current is not None and len(current) < batch_size
        if fits and current is not None and max_batch_tokens is not None:
            # Sorted longest first, so the batch's first text sets its padded length.
            fits = (len(current) + 1) * lengths[current[0]] <= max_batch_tokens
        if fits and current is not None:
            current.append(index)
        else:
            batches.append([index])
    return batches


def map_in_length_batches(
    texts: Sequence[str],
    embed_batch: Callable[[list[str]], list[T]],
    *,
    batch_size: int,
    lengths: Sequence[int] | None = None,
    max_batch_tokens: int | None = None,
    progress: ProgressCallback | None = None,
) -> list[T]:
    """``embed_batch`` over length-sorted batches of ``texts``; results in input order.

    ``lengths`` are the texts' token counts (character counts when not given).
    """
    sizes = lengths if lengths is not None else [len(text) for text in texts]
    if len(sizes) != len(texts):
        raise ValueError("one length per text is needed")
    results: list[T | None] = [None] * len(texts)
    done = 0
    for batch in length_sorted_batches(sizes, batch_size, max_batch_tokens=max_batch_tokens):
        outputs = embed_batch([texts[i] for i in batch])
        if len(outputs) != len(batch):
            raise RuntimeError(f"embedded {len(outputs)} texts for a batch of {len(batch)}")
        for index, output in zip(batch, outputs, strict=True):
            results[index] = output
        done += len(batch)
        if progress is not None:
            progress(done, len(texts))
    return cast(list[T], results)  # every index appears in exactly one batch


def token_lengths(counter: "Tokenizer", texts: Sequence[str], max_tokens: int) -> list[int]:
    """Each text's length in tokens as a model reading at most ``max_tokens`` sees it
    (``counter`` must count without truncating)."""
    return [min(len(encoding.ids), max_tokens) for encoding in counter.encode_batch(list(texts))]

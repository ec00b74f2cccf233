"""Length-sorted batching: less padding, same results in input order."""

import pytest

from raggin_lsp.embed.batching import length_sorted_batches, map_in_length_batches


@pytest.mark.parametrize(
    ("lengths", "batch_size", "batches"),
    [
        pytest.param([], 4, [], id="empty"),
        pytest.param([5, 1, 9, 3], 2, [[2, 0], [3, 1]], id="longest-first"),
        pytest.param([2, 2, 2], 2, [[0, 1], [2]], id="ties-keep-input-order"),
        pytest.param([1, 50, 2, 49, 3, 48], 3, [[1, 3, 5], [4, 2, 0]], id="similar-together"),
    ],
)
def test_batches_group_similar_lengths(
    lengths: list[int], batch_size: int, batches: list[list[int]]
) -> None:
    assert length_sorted_batches(lengths, batch_size) == batches


@pytest.mark.parametrize(
    ("lengths", "batches"),
    [
        pytest.param([10, 10, 10, 10], [[0, 1, 2], [3]], id="short-texts-fill-batches"),
        pytest.param([90, 10, 10, 10], [[0], [1, 2, 3]], id="long-text-goes-alone"),
        pytest.param([50, 50, 10], [[0], [1], [2]], id="two-long-texts-split"),
        pytest.param([150, 5], [[0], [1]], id="over-budget-text-still-embedded"),
    ],
)
def test_token_budget_caps_padded_batch_size(lengths: list[int], batches: list[list[int]]) -> None:
    assert length_sorted_batches(lengths, 3, max_batch_tokens=60) == batches


def test_results_come_back_in_input_order() -> None:
    texts = ["ccc", "a", "bbbbb", "dd", "eeee"]
    seen_batches: list[list[str]] = []

    def embed(batch: list[str]) -> list[str]:
        seen_batches.append(batch)
        return [text.upper() for text in batch]

    assert map_in_length_batches(texts, embed, batch_size=2) == [t.upper() for t in texts]
    assert seen_batches[0] == ["bbbbb", "eeee"]


def test_a_batch_function_that_drops_results_is_caught() -> None:
    with pytest.raises(RuntimeError, match="embedded 1 texts for a batch of 2"):
        map_in_length_batches(["a", "b"], lambda batch: batch[:1], batch_size=2)


def test_batch_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        length_sorted_batches([1], 0)

"""Fusion maths: arctan weighting in Python, RRF and DBSF ordering done by Qdrant."""

import math
from collections.abc import Iterator, Sequence
from functools import partial

import numpy as np
import pytest
from qdrant_client import QdrantClient

from raggin_lsp.corpus.model import Section
from raggin_lsp.embed.base import Embedding, ProfileSpec, ProgressCallback, SparseVector
from raggin_lsp.retrieve.fusion import arctan_normalise, weighted_fusion
from raggin_lsp.retrieve.search import search as search_with_stages
from raggin_lsp.retrieve.stages import NO_STAGES
from raggin_lsp.store import DocsIndex, StoreSettings

# These tests are about hybrid search and fusion themselves: no retrieval stage on top.
search = partial(search_with_stages, stages=NO_STAGES)

# ------------------------------------------------------------------ arctan weighting


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(0.0, 0.0, id="zero-stays-zero"),
        pytest.param(1.0, 0.5, id="cosine-one-is-half"),
        pytest.param(-1.0, -0.5, id="negative-cosine-is-negative"),
        pytest.param(1e9, 1.0, id="huge-sparse-score-approaches-one"),
    ],
)
def test_arctan_normalise_maps_scores_into_unit_range(raw: float, expected: float) -> None:
    assert arctan_normalise(raw) == pytest.approx(expected, abs=1e-6)


def test_arctan_normalise_keeps_order() -> None:
    raws = [-3.0, -0.2, 0.0, 0.3, 0.9, 4.0, 25.0]
    normalised = [arctan_normalise(raw) for raw in raws]
    assert normalised == sorted(normalised)
    assert all(-1.0 < value < 1.0 for value in normalised)


@pytest.mark.parametrize(
    ("scores", "weights", "expected_order"),
    [
        pytest.param(
            {"text": {"a": 0.9, "b": 0.1}, "sparse": {"a": 0.5, "b": 0.6}},
            {"text": 0.5, "sparse": 0.5},
            ["a", "b"],
            id="strong-dense-beats-slightly-better-sparse",
        ),
        pytest.param(
            {"text": {"a": 0.6, "b": 0.5}, "sparse": {"a": 1.0, "b": 30.0}},
            {"text": 0.5, "sparse": 0.5},
            ["b", "a"],
            id="large-sparse-margin-wins-but-bounded",
        ),
        pytest.param(
            {"text": {"a": 0.6, "b": 0.5}, "sparse": {"a": 1.0, "b": 30.0}},
            {"text": 0.95, "sparse": 0.05},
            ["a", "b"],
            id="weights-decide",
        ),
        pytest.param(
            {"text": {"a": 0.4}, "sparse": {"b": 2.0}},
            {"text": 0.5, "sparse": 0.5},
            ["b", "a"],
            id="missing-modality-counts-zero",
        ),
    ],
)
def test_weighted_fusion_order(
    scores: dict[str, dict[str, float]], weights: dict[str, float], expected_order: list[str]
) -> None:
    assert [key for key, _ in weighted_fusion(scores, weights)] == expected_order


def test_weighted_fusion_is_the_weighted_sum_of_arctans() -> None:
    fused = dict(weighted_fusion({"text": {"a": 0.8}, "sparse": {"a": 3.0}, "code": {"a": 0.5}}))
    expected = (
        0.4 * arctan_normalise(0.8)
        + 0.4 * arctan_normalise(3.0)
        + 0.2 * (2 / math.pi * math.atan(0.5))
    )
    assert fused["a"] == pytest.approx(expected)


def test_weighted_fusion_rescales_weights_without_code() -> None:
    fused = dict(weighted_fusion({"text": {"a": 1.0}, "sparse": {"a": 1.0}}))
    # Default weights 0.4/0.4 rescaled to 0.5/0.5: a perfect-looking pair stays at 0.5.
    assert fused["a"] == pytest.approx(0.5)


def test_weighted_fusion_refuses_all_zero_weights() -> None:
    with pytest.raises(ValueError, match="no positive weight"):
        weighted_fusion({"text": {"a": 1.0}}, {"text": 0.0})


# ------------------------------------------------------------------ RRF / DBSF in Qdrant


class ScriptedTestEmbedder:
    """Test double: the document ``doc <name>`` gets exactly the vectors the test chose.

    Dense vectors are unit vectors at an angle from the query's direction (smaller angle,
    higher cosine); the sparse vector is one shared term with the chosen weight.
    """

    def __init__(self, dense_order: Sequence[str], sparse_order: Sequence[str]) -> None:
        self.spec = ProfileSpec("test-scripted", 2, 100, False, "5c41b7ed0001")
        self.dense_rank = {name: rank for rank, name in enumerate(dense_order)}
        self.sparse_rank = {name: rank for rank, name in enumerate(sparse_order)}

    def embed_documents(
        self, texts: Sequence[str], *, progress: ProgressCallback | None = None
    ) -> list[Embedding]:
        return [self._document(text.rsplit(" ", 1)[-1]) for text in texts]

    def _document(self, name: str) -> Embedding:
        angle = 0.1 + 0.2 * self.dense_rank.get(name, 7)
        dense = np.array([math.cos(angle), math.sin(angle)], dtype=np.float32)
        rank = self.sparse_rank.get(name)
        if rank is None:
            return Embedding(dense, SparseVector((), ()))
        return Embedding(dense, SparseVector((1,), (10.0 - rank,)))

    def embed_query(self, text: str, *, sparse_text: str | None = None) -> Embedding:
        return Embedding(np.array([1.0, 0.0], dtype=np.float32), SparseVector((1,), (1.0,)))

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def _doc(name: str) -> Section:
    return Section(
        version="16.0.0",
        source_path=f"01-app/{name}.md",
        url_path=f"/docs/app/{name}",
        anchor="",
        heading_path=(name,),
        text=f"doc {name}",
    )


def _rrf(dense: Sequence[str], sparse: Sequence[str], k: int = 2) -> dict[str, float]:
    """Qdrant's RRF: sum over lists of 1 / (k + position), position counted from 0."""
    scores: dict[str, float] = {}
    for ranking in (dense, sparse):
        for position, name in enumerate(ranking):
            scores[name] = scores.get(name, 0.0) + 1.0 / (k + position)
    return scores


@pytest.fixture
def scripted_index() -> Iterator[DocsIndex]:
    spec = ScriptedTestEmbedder([], []).spec
    with DocsIndex.open(StoreSettings(), spec, client=QdrantClient(":memory:")) as index:
        yield index


@pytest.mark.parametrize(
    ("dense", "sparse", "expected"),
    [
        pytest.param("ABCD", "ABCD", "ABCD", id="agreement"),
        pytest.param("ABCD", "BCAD", "BACD", id="second-and-first-beats-first-and-third"),
        pytest.param("EABC", "ABC", "ABEC", id="dense-only-first-loses-to-consistent"),
        pytest.param("ABCDE", "ED", "EDABC", id="sparse-leader-last-in-dense-wins"),
    ],
)
def test_rrf_orders_by_reciprocal_ranks(
    scripted_index: DocsIndex, dense: str, sparse: str, expected: str
) -> None:
    embedder = ScriptedTestEmbedder(list(dense), list(sparse))
    names = sorted(set(dense) | set(sparse))
    scripted_index.index_version("16.0.0", [_doc(name) for name in names], embedder)

    results = search(scripted_index, embedder, "q", "16.0.0", top_k=len(names), fusion="rrf")

    got = "".join(result.title for result in results)
    assert got == expected
    formula = _rrf(list(dense), list(sparse))
    for result in results:
        assert result.score == pytest.approx(formula[result.title])


def test_dbsf_and_rrf_can_disagree_on_score_margins(scripted_index: DocsIndex) -> None:
    """DBSF looks at score distributions, RRF only at ranks: both must put the document
    first in both modalities first, and both report per-modality raw scores."""
    embedder = ScriptedTestEmbedder(list("ABC"), list("ACB"))
    scripted_index.index_version("16.0.0", [_doc(n) for n in "ABC"], embedder)
    for fusion in ("rrf", "dbsf"):
        results = search(scripted_index, embedder, "q", "16.0.0", top_k=3, fusion=fusion)
        assert results[0].title == "A"
        assert set(results[0].scores) == {"text", "sparse"}
        assert results[0].scores["sparse"] == pytest.approx(10.0)

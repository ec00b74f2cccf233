"""Page-level metrics against hand-computed tables."""

import math

import pytest

from raggin_lsp.eval.metrics import (
    METRIC_KEYS,
    QuestionScore,
    aggregate,
    page_of,
    percentile,
    score_ranking,
    unique_pages,
)

A, B, C = "/docs/app/a", "/docs/app/b", "/docs/app/c"
X, Y = "/docs/app/x", "/docs/app/y"
MISSES = [f"/docs/app/miss-{i}" for i in range(10)]


@pytest.mark.parametrize(
    ("url_path", "page"),
    [
        pytest.param("/docs/app/a#anchor", "/docs/app/a", id="anchor-dropped"),
        pytest.param("/docs/app/", "/docs/app", id="trailing-slash"),
        pytest.param("/docs/app/a/#x", "/docs/app/a", id="slash-and-anchor"),
        pytest.param("/", "/", id="root-kept"),
    ],
)
def test_page_of(url_path: str, page: str) -> None:
    assert page_of(url_path) == page


def test_unique_pages_keeps_first_occurrence_order() -> None:
    assert unique_pages([B + "#1", A, B + "#2", A + "#x", C]) == [B, A, C]


# (ranked, gold, P@1, P@3, P@5, P@10, R@1, R@3, R@5, R@10, MRR@10, nDCG@10)
TABLE = [
    pytest.param(
        [A, B, C], [A], 1, 1 / 3, 1 / 5, 1 / 10, 1, 1, 1, 1, 1.0, 1.0, id="single-gold-at-top"
    ),
    pytest.param(
        [X, A + "#h", A, Y, B],
        [A, B],
        0,
        1 / 3,
        2 / 5,
        2 / 10,
        0,
        1 / 2,
        1,
        1,
        1 / 2,
        (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3)),
        id="two-gold-ranks-2-and-4-after-dedupe",
    ),
    pytest.param(
        [A, A + "#1", A + "#2", B],
        [A, B],
        1,
        2 / 3,
        2 / 5,
        2 / 10,
        1 / 2,
        1,
        1,
        1,
        1.0,
        1.0,
        id="chunks-of-one-page-count-once",
    ),
    pytest.param(
        [X, Y],
        [A],
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0.0,
        0.0,
        id="no-hit",
    ),
    pytest.param(
        [*MISSES, A],
        [A],
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0.0,
        0.0,
        id="hit-at-rank-11-is-ignored",
    ),
    pytest.param(
        [*(m + "#dup" for m in MISSES[:2]), *MISSES[:2], A],
        [A],
        0,
        1 / 3,
        1 / 5,
        1 / 10,
        0,
        1,
        1,
        1,
        1 / 3,
        1 / math.log2(4),
        id="duplicates-do-not-push-hits-down",
    ),
    pytest.param(
        [],
        [A, B, C],
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0.0,
        0.0,
        id="empty-result",
    ),
    pytest.param(
        ["/docs/app"],
        ["/docs/app/#getting-started"],
        1,
        1 / 3,
        1 / 5,
        1 / 10,
        1,
        1,
        1,
        1,
        1.0,
        1.0,
        id="gold-anchor-and-slash-ignored",
    ),
    pytest.param(
        [C, X, A],
        [A, B, C],
        1,
        2 / 3,
        2 / 5,
        2 / 10,
        1 / 3,
        2 / 3,
        2 / 3,
        2 / 3,
        1.0,
        (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3) + 1 / math.log2(4)),
        id="three-gold-two-found",
    ),
]


@pytest.mark.parametrize(
    ("ranked", "gold", "p1", "p3", "p5", "p10", "r1", "r3", "r5", "r10", "mrr", "ndcg"), TABLE
)
def test_score_ranking(
    ranked: list[str],
    gold: list[str],
    p1: float,
    p3: float,
    p5: float,
    p10: float,
    r1: float,
    r3: float,
    r5: float,
    r10: float,
    mrr: float,
    ndcg: float,
) -> None:
    score = score_ranking(ranked, gold)
    assert score.precision == pytest.approx({1: p1, 3: p3, 5: p5, 10: p10})
    assert score.recall == pytest.approx({1: r1, 3: r3, 5: r5, 10: r10})
    assert score.mrr == pytest.approx(mrr)
    assert score.ndcg == pytest.approx(ndcg)


def test_score_ranking_needs_gold() -> None:
    with pytest.raises(ValueError, match="gold"):
        score_ranking([A], [])


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        pytest.param([], 50, 0.0, id="no-values"),
        pytest.param([7.0], 95, 7.0, id="one-value"),
        pytest.param([4.0, 1.0, 3.0, 2.0], 50, 2.5, id="median-even-unsorted"),
        pytest.param([1.0, 2.0, 3.0, 4.0], 95, 3.85, id="p95-interpolated"),
        pytest.param([float(v) for v in range(10, 101, 10)], 95, 95.5, id="p95-of-ten"),
        pytest.param([1.0, 2.0, 3.0], 100, 3.0, id="max"),
    ],
)
def test_percentile(values: list[float], q: float, expected: float) -> None:
    assert percentile(values, q) == pytest.approx(expected)


def test_percentile_rejects_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"within 0\.\.100"):
        percentile([1.0], 101)


def test_aggregate_macro_averages_in_report_order() -> None:
    perfect = score_ranking([A], [A])
    miss = score_ranking([X], [A])
    half = QuestionScore(
        precision={1: 0.5, 3: 0.5, 5: 0.5, 10: 0.5},
        recall={1: 0.5, 3: 0.5, 5: 0.5, 10: 0.5},
        mrr=0.5,
        ndcg=0.5,
    )
    metrics = aggregate([perfect, miss, half], [10.0, 30.0, 20.0])
    assert list(metrics) == list(METRIC_KEYS)
    assert metrics["R@1"] == pytest.approx(0.5)
    assert metrics["P@3"] == pytest.approx((1 / 3 + 0 + 0.5) / 3)
    assert metrics["MRR@10"] == pytest.approx(0.5)
    assert metrics["p50_ms"] == pytest.approx(20.0)
    assert metrics["p95_ms"] == pytest.approx(29.0)
    assert metrics["n"] == 3


def test_aggregate_of_nothing_is_zero() -> None:
    metrics = aggregate([], [])
    assert metrics["n"] == 0
    assert metrics["nDCG@10"] == 0.0

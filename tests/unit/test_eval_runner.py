"""The runner asks every question with every strategy and scores page-level answers."""

import pytest

from raggin_lsp.eval.metrics import METRIC_KEYS
from raggin_lsp.eval.questions import Question, parse_questions
from raggin_lsp.eval.runner import ALL_STRATEGIES, DEFAULT_STRATEGY, Strategy, run_eval

QUESTIONS = parse_questions(
    [
        {
            "id": "c1",
            "question": "read a cookie",
            "gold": ["/docs/c"],
            "router": "app",
            "kind": "api",
        },
        {
            "id": "h1",
            "question": "deploy to docker",
            "gold": ["/docs/h1", "/docs/h2"],
            "router": "pages",
            "kind": "how-to",
        },
        {
            "id": "n1",
            "question": "new only",
            "gold": ["/docs/n"],
            "router": "app",
            "kind": "api",
            "version": ">=16.4.0",
        },
        {
            "id": "m1",
            "question": "moved page",
            "gold": ["/docs/new"],
            "router": "app",
            "kind": "concept",
            "gold_by_version": {"16.2.0": ["/docs/old"], "16.4.6": ["/docs/new"]},
        },
    ]
)
RIGHT = {
    "read a cookie": ["/docs/c#a", "/docs/c#b", "/docs/z"],
    "deploy to docker": ["/docs/h1", "/docs/h2"],
    "new only": ["/docs/n"],
    "moved page": ["/docs/old", "/docs/new"],
}


def fake_search(text: str, question: Question, strategy: Strategy) -> tuple[list[str], float]:
    """sparse answers right; dense answers nothing relevant; latency depends on the fusion."""
    latency = {"sparse": 5.0, "dense": 50.0}.get(strategy.fusion, 20.0)
    if strategy.fusion == "dense":
        return ["/docs/z", "/docs/y"], latency
    return RIGHT[text], latency


def test_every_strategy_scored_with_metrics_in_order() -> None:
    report = run_eval(QUESTIONS, fake_search)
    assert list(report.strategies) == [s.name for s in ALL_STRATEGIES]
    assert "rrf+pages" in report.strategies
    assert "weighted" in report.strategies
    for metrics in report.strategies.values():
        assert list(metrics) == list(METRIC_KEYS)
    # The summary is what the server does by default: weighted fusion, one section per page.
    assert report.default_strategy == DEFAULT_STRATEGY == "dbsf+pages"
    assert report.summary is report.strategies["dbsf+pages"]


def test_good_strategy_beats_bad_one() -> None:
    report = run_eval(QUESTIONS, fake_search, ["sparse", "dense"])
    sparse, dense = report.strategies["sparse"], report.strategies["dense"]
    assert sparse["R@10"] == pytest.approx(1.0)
    assert dense["R@10"] == 0.0
    assert sparse["p50_ms"] == 5.0
    assert dense["p95_ms"] == 50.0
    assert report.default_strategy == "sparse"


def test_version_skips_questions_and_picks_version_gold() -> None:
    old = run_eval(QUESTIONS, fake_search, ["sparse"], version="16.2.0")
    new = run_eval(QUESTIONS, fake_search, ["sparse"], version="16.4.6")
    assert old.strategies["sparse"]["n"] == 3
    assert new.strategies["sparse"]["n"] == 4
    # "moved page" ranks /docs/old first: right for 16.2.0, second-best for 16.4.6.
    assert old.per_kind["concept"]["sparse"]["MRR@10"] == 1.0
    assert new.per_kind["concept"]["sparse"]["MRR@10"] == 0.5


def test_per_kind_splits_questions() -> None:
    report = run_eval(QUESTIONS, fake_search, ["sparse", "dense"])
    assert list(report.per_kind) == ["api", "how-to", "concept"]
    assert report.per_kind["api"]["sparse"]["n"] == 2
    assert report.per_kind["how-to"]["dense"]["n"] == 1
    assert report.per_kind["how-to"]["sparse"]["P@1"] == 1.0


def test_results_keep_deduplicated_pages_for_inspection() -> None:
    report = run_eval(QUESTIONS, fake_search, ["sparse"])
    cookie = next(r for r in report.results if r.question_id == "c1")
    assert cookie.pages == ("/docs/c", "/docs/z")
    assert cookie.score.precision[1] == 1.0


@pytest.mark.parametrize(
    ("strategies", "default", "message"),
    [
        pytest.param(["bm42"], None, "Unknown strategy 'bm42'", id="unknown-name"),
        pytest.param(["rrf+groups"], None, "Unknown strategy", id="unknown-suffix"),
        pytest.param([], None, "at least one strategy", id="none"),
        pytest.param(["rrf"], "dbsf", "not among", id="default-not-run"),
    ],
)
def test_bad_arguments(strategies: list[str], default: str | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run_eval(QUESTIONS, fake_search, strategies, default_strategy=default)


def test_strategy_names_round_trip() -> None:
    for strategy in ALL_STRATEGIES:
        assert Strategy.from_name(strategy.name) == strategy
    assert len({s.name for s in ALL_STRATEGIES}) == 10

"""Report shapes: JSON keys and order, Markdown table, PNG plot."""

import json
import struct
from pathlib import Path

import pytest

from raggin_lsp.eval.metrics import METRIC_KEYS
from raggin_lsp.eval.questions import Question, parse_questions
from raggin_lsp.eval.report import (
    ReportError,
    to_json,
    to_markdown,
    write_recall_plot,
    write_report,
)
from raggin_lsp.eval.runner import EvalReport, Strategy, run_eval

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

QUESTIONS = parse_questions(
    [
        {"id": "a", "question": "qa", "gold": ["/docs/a"], "router": "app", "kind": "api"},
        {
            "id": "b",
            "question": "qb",
            "gold": ["/docs/b", "/docs/c"],
            "router": "pages",
            "kind": "complex",
        },
    ]
)


def search(text: str, question: Question, strategy: Strategy) -> tuple[list[str], float]:
    ranked = ["/docs/x", *question.gold] if strategy.group_pages else list(question.gold[:1])
    return ranked, 12.5 if strategy.fusion == "rrf" else 3.0


@pytest.fixture
def report() -> EvalReport:
    return run_eval(
        QUESTIONS,
        search,
        ["sparse", "rrf", "rrf+pages"],
        version="16.4.6",
        default_strategy="rrf+pages",
    )


def test_json_shape_and_order(report: EvalReport) -> None:
    data = to_json(report)
    assert list(data) == ["summary", "strategies", "per_kind", "per_style"]
    assert list(data["summary"]) == list(METRIC_KEYS)
    assert data["summary"] == data["strategies"]["rrf+pages"]
    assert list(data["strategies"]) == ["sparse", "rrf", "rrf+pages"]
    assert list(data["per_kind"]) == ["api", "complex"]
    for by_strategy in data["per_kind"].values():
        assert list(by_strategy) == ["sparse", "rrf", "rrf+pages"]
        for metrics in by_strategy.values():
            assert list(metrics) == list(METRIC_KEYS)
    assert data["summary"]["n"] == 2
    assert isinstance(data["summary"]["n"], int)
    assert data["strategies"]["rrf"]["p50_ms"] == 12.5
    json.dumps(data)  # serialisable as it is


def test_markdown_has_one_row_per_strategy_and_bold_default(report: EvalReport) -> None:
    text = to_markdown(report)
    assert "Next.js 16.4.6" in text
    header = "| strategy | " + " | ".join(METRIC_KEYS) + " |"
    assert text.count(header) == 3  # overall + two kinds
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert any(line.startswith("| **rrf+pages** |") for line in rows)
    assert any(line.startswith("| sparse | 1.000 |") for line in rows)
    assert "### kind: complex (1 questions)" in text


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_plot_is_a_png(report: EvalReport, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = write_recall_plot(report, tmp_path / "plots" / "recall.png")
    assert _png_size(path) == (800, 500)


def test_write_report_writes_all_three(report: EvalReport, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    written = write_report(report, tmp_path)
    assert json.loads(written["json"].read_text())["summary"]["n"] == 2
    assert written["markdown"].read_text().startswith("## Retrieval quality")
    assert written["plot"].read_bytes()[:8] == PNG_SIGNATURE


def test_write_report_into_a_file_path_is_a_user_error(report: EvalReport, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ReportError, match="Cannot write the evaluation report"):
        write_report(report, blocker, plot=False)

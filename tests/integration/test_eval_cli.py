"""`raggin-lsp eval` on a slice of the question set against the real 16.2.0 light index,
so the evaluation command cannot rot (the full run is `make eval`)."""

import json
import subprocess
from pathlib import Path

import pytest

from raggin_lsp.eval.metrics import METRIC_KEYS
from raggin_lsp.retrieve.stages import Stages
from tests.conftest import RAGGIN, ROOT

pytestmark = [pytest.mark.network, pytest.mark.slow]


def test_eval_slice_reports_every_metric_for_each_strategy(
    light_index_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    strategies = ["-q", "--strategy", "dbsf+pages", "--strategy", "sparse"]
    index = ["--profile", "light", "--qdrant-path", str(light_index_dir), "--out", str(out)]
    run = subprocess.run(
        [
            *RAGGIN,
            "eval",
            "--version",
            "16.2.0",
            "--split",
            "tune",
            "--limit",
            "12",
            "--json",
            *strategies,
            *index,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert list(report) == ["summary", "strategies", "per_kind", "per_style"]
    assert list(report["strategies"]) == ["dbsf+pages", "sparse"]
    # The summary is the default strategy: what the server does unless told otherwise.
    assert report["summary"] == report["strategies"]["dbsf+pages"]
    for metrics in report["strategies"].values():
        assert list(metrics) == list(METRIC_KEYS)
        assert 0 < metrics["n"] <= 12
        assert all(0.0 <= metrics[key] <= 1.0 for key in METRIC_KEYS if "@" in key)
        assert metrics["p50_ms"] > 0
    # Real retrieval over real docs finds most gold pages of these questions.
    assert report["summary"]["R@10"] >= 0.5
    assert (out / "recall.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| **dbsf+pages** |" in (out / "report.md").read_text()


def test_ablation_prints_one_row_per_stage_on_and_off(
    light_index_dir: Path, tmp_path: Path
) -> None:
    index = ["--profile", "light", "--qdrant-path", str(light_index_dir)]
    run = subprocess.run(
        [
            *RAGGIN,
            "eval",
            "--version",
            "16.2.0",
            "--limit",
            "6",
            "--ablation",
            "-q",
            "--out",
            str(tmp_path),
            *index,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    rows = [line.split("|")[1].strip() for line in run.stdout.splitlines() if line.startswith("| ")]
    assert rows[1:3] == ["no stages", "default"]
    toggled = {row.split(" ", 1)[1] for row in rows[3:] if not row.startswith("&")}
    assert toggled == set(Stages.names())
    assert (tmp_path / "ablation.md").read_text() == run.stdout.rstrip("\n") + "\n"

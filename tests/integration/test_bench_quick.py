"""``python -m bench --quick`` (what ``make bench`` runs) on the real 16.2.0 index, so the
bench cannot rot in CI.

Timings are only checked to be positive and finite: their values depend on the machine.
"""

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.bge_m3_speed import BgeM3Plan, measure_bge_m3
from bench.report import BGE_M3, LIGHT, LSP
from bench.xlmr_graph import Architecture
from tests.conftest import ROOT

pytestmark = [pytest.mark.network, pytest.mark.slow]

LIGHT_ROWS = (
    "load the model",
    "parse a whole version",
    "index throughput, sample of real sections",
    "whole-version index time, Next.js 16.2.0 (extrapolated)",
    "first search results, docs cached",
    "first search results, empty cache",  # the docs download included
    "texts re-embedded for 16.4.6 after 16.2.0",
    "warm search latency",
    "import an exported version",
    "peak RSS, bench process",
)
LSP_ROWS = (
    "initialize (spawn to InitializeResult)",
    "hover on revalidatePath",
    "raggin/search",
    "raggin/ask to first $/progress report (instant fake Ollama)",
    "peak RSS, language server process",
    "RSS, language server process after a search",
    "floor: spawn to exit of `python -c 'import pygls.lsp.server'`",
    "floor: a bare pygls server, spawn to InitializeResult",
)
BGE_M3_ROWS = (
    "build the random-weights model (once, cached)",
    "load the model",
    "query embedding latency",
    "index throughput, sample of real sections",
    "whole-version index time (extrapolated)",
    "peak RSS, bench worker process",
)


def assert_measured(row: dict[str, Any]) -> None:
    label = f"{row['group']} / {row['name']}: {row}"
    assert isinstance(row["median"], float | int), label
    assert math.isfinite(row["median"]), label
    assert row["median"] > 0, label
    assert row["runs"] >= 1, label
    if row["p95"] is not None:
        assert math.isfinite(row["p95"]), label
        assert row["p95"] > 0, label


def test_quick_bench_prints_every_row(writable_light_index: Path) -> None:
    command = [sys.executable, "-m", "bench", "--quick", "--json", "--no-bge-m3"]
    command += ["--qdrant-path", str(writable_light_index)]
    completed = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30 * 60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    report = json.loads(completed.stdout)
    rows = {(row["group"], row["name"]): row for row in report["rows"]}

    for name in LIGHT_ROWS:
        assert_measured(rows[(LIGHT, name)])
    share = rows[(LIGHT, "texts re-embedded for 16.4.6 after 16.2.0")]["median"]
    assert 0 < share < 100
    for name in LSP_ROWS:
        assert_measured(rows[(LSP, name)])
    for name in (LSP_ROWS[0], LSP_ROWS[3], LSP_ROWS[5]):  # issue 14's targets
        assert "target <" in rows[(LSP, name)]["note"]
    for name in BGE_M3_ROWS:
        row = rows[(BGE_M3, name)]
        assert row["median"] is None
        assert "--no-bge-m3" in row["note"]
    assert report["context"]["mode"] == "quick"


TINY = Architecture(layers=2, hidden=64, heads=4, ffn=128, vocab_size=1000, max_positions=514)


def test_tiny_bge_m3_architecture_runs_through_the_bench(tmp_path: Path) -> None:
    """The full-size builder and the bge-m3 path end to end, at a size tests can afford."""
    plan = BgeM3Plan(
        version="16.2.0", query_runs=3, sample_texts=4, sample_runs=2, architecture=TINY
    )
    first = {row.name: row for row in measure_bge_m3(plan, cache=tmp_path)}
    assert set(first) == set(BGE_M3_ROWS)
    for row in first.values():
        assert row.group == BGE_M3
        assert_measured(row.to_json())
    assert first["build the random-weights model (once, cached)"].note.startswith("built now")

    again = {row.name: row for row in measure_bge_m3(plan, cache=tmp_path)}
    build = again["build the random-weights model (once, cached)"]
    assert build.note.startswith("built in an earlier run")
    assert build.median == pytest.approx(
        first["build the random-weights model (once, cached)"].median
    )

"""The bench's arithmetic and its table: percentiles, reuse share, rendering, the CLI."""

import json
import math
import subprocess
import sys
import time

import numpy as np
import pytest

from bench import STAGES
from bench.__main__ import main
from bench.lsp import ROW_NAMES, TARGETS, against_target
from bench.pipeline import reembed_share, section_share
from bench.report import BGE_M3, LIGHT, BenchReport, Row, render_table
from bench.stats import child_pids, percentile, rss_mb_of, summarize
from raggin_lsp.corpus.model import Section
from raggin_lsp.embed.catalog import get_profile_spec


@pytest.mark.parametrize(
    "samples",
    [
        pytest.param([5.0], id="one"),
        pytest.param([3.0, 1.0], id="two-unsorted"),
        pytest.param([float(n) for n in range(1, 101)], id="hundred"),
        pytest.param([10.0, 10.0, 10.0, 250.0], id="one-outlier"),
        pytest.param(list(np.random.default_rng(3).exponential(20, 37)), id="skewed"),
    ],
)
@pytest.mark.parametrize("q", [0, 5, 50, 95, 100])
def test_percentile_agrees_with_numpy(samples: list[float], q: float) -> None:
    assert percentile(samples, q) == pytest.approx(float(np.percentile(samples, q)))


def test_summary_p95_is_the_slow_end_of_latencies() -> None:
    summary = summarize([10.0] * 19 + [400.0])
    assert summary.median == 10.0
    assert summary.p95 > summary.median
    assert summary.runs == 20


@pytest.mark.parametrize(
    "samples", [pytest.param([], id="empty"), pytest.param([1.0], id="q-out-of-range")]
)
def test_percentile_refuses_nonsense(samples: list[float]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 (either message is fine)
        percentile(samples, 101)


def _section(text: str, anchor: str, version: str) -> Section:
    return Section(
        version=version,
        source_path="01-app/page.md",
        url_path="/docs/app/page",
        anchor=anchor,
        heading_path=("Page", anchor),
        text=text,
    )


@pytest.mark.parametrize(
    ("old_texts", "new_texts", "expected"),
    [
        pytest.param(["a", "b"], ["a", "b"], (0, 2), id="unchanged"),
        pytest.param(["a", "b"], ["a", "b2"], (1, 2), id="one-edited"),
        pytest.param(["a"], ["a", "b", "c"], (2, 3), id="pages-added"),
        pytest.param(["a", "b", "c"], ["a"], (0, 1), id="pages-removed"),
        pytest.param(["a"], ["x", "x"], (1, 1), id="duplicates-stored-once"),
    ],
)
def test_section_share_counts_sections_the_store_would_embed(
    old_texts: list[str], new_texts: list[str], expected: tuple[int, int]
) -> None:
    # Equal text under the same heading hashes alike whatever the version: it is reused.
    old = [_section(text, f"h-{text}", "16.2.0") for text in old_texts]
    new = [_section(text, f"h-{text}", "16.4.6") for text in new_texts]
    assert section_share(old, new) == expected


def test_reembed_share_counts_only_the_paragraphs_the_model_has_not_seen() -> None:
    spec = get_profile_spec("light")  # paragraph vectors
    old = [_section("First part.\n\nSecond part.", "usage", "16.2.0")]
    edited = [_section("First part.\n\nSecond part, edited.", "usage", "16.4.6")]
    moved = [_section("Second part.", "other", "16.4.6")]  # a new heading, a known paragraph

    assert reembed_share(old, edited, spec) == (1, 3)  # heading + two paragraphs
    assert reembed_share(old, moved, spec) == (1, 2)


def _report() -> BenchReport:
    report = BenchReport(context={"profile": "light"})
    report.add(
        Row(LIGHT, "warm search latency", "ms", 12.5, 30.25, 20, "Assistant.search"),
        Row(LIGHT, "peak RSS, bench process", "MB", 512.0),
        Row.unavailable(BGE_M3, "query embedding latency", "ms", "skipped with --no-bge-m3"),
    )
    return report


def test_table_shows_every_row_grouped_with_its_figures() -> None:
    table = render_table(_report())
    lines = table.splitlines()
    assert "profile: light" in lines
    assert f"[{LIGHT}]" in lines
    assert f"[{BGE_M3}]" in lines
    search = next(line for line in lines if line.startswith("warm search latency"))
    assert search.split()[3:6] == ["12.5", "30.2", "20"]
    skipped = next(line for line in lines if line.startswith("query embedding latency"))
    assert "n/a" in skipped.split()
    assert "skipped with --no-bge-m3" in skipped


def test_json_keeps_unmeasured_rows_as_null_with_the_reason() -> None:
    data = json.loads(json.dumps(_report().to_json()))
    rows = {row["name"]: row for row in data["rows"]}
    assert rows["warm search latency"]["median"] == 12.5
    assert rows["query embedding latency"]["median"] is None
    assert rows["query embedding latency"]["note"].startswith("n/a")


def test_unmeasured_row_is_not_measured() -> None:
    assert not Row.unavailable(LIGHT, "x", "ms", "why").measured
    assert not Row(LIGHT, "x", "ms", math.nan).measured
    assert Row(LIGHT, "x", "ms", 0.5).measured


def test_cli_rejects_zero_repeats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--repeat", "0", "--no-bge-m3", "--no-lsp"]) != 0
    assert "--repeat" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("reason", "failed"),
    [
        pytest.param("failed: RuntimeError: the server crashed", True, id="broken-stage"),
        pytest.param("skipped with --no-bge-m3", False, id="skipped"),
        pytest.param("pytest-lsp not installed", False, id="unavailable"),
    ],
)
def test_only_a_broken_stage_fails_the_bench(reason: str, failed: bool) -> None:
    report = _report()
    report.add(Row.unavailable(LIGHT, "hover", "ms", reason))
    assert report.failed is failed


def test_seconds_until_searchable_stops_the_job_after_the_lexical_pass() -> None:
    from bench.pipeline import seconds_until_searchable
    from tests.unit.store_doubles import LexicalHashingTestEmbedder, docs_tree_corpus

    embedder = LexicalHashingTestEmbedder()

    seconds = seconds_until_searchable(docs_tree_corpus("16.4.6"), "16.4.6", embedder)

    assert seconds > 0
    assert len(embedder.sparse_texts) == 7  # every section stored lexically
    assert embedder.embedded_texts == []  # no dense vector computed


@pytest.mark.parametrize(
    ("row", "median", "verdict"),
    [
        pytest.param(0, 299.0, "target < 300 ms: met", id="initialize-met"),
        pytest.param(0, 300.0, "target < 300 ms: missed", id="initialize-missed"),
        pytest.param(3, 82.8, "target < 50 ms: missed", id="ask-missed"),
        pytest.param(6, 399.0, "target < 400 MB: met", id="rss-met"),
    ],
)
def test_the_issue_14_rows_say_whether_they_meet_their_target(
    row: int, median: float, verdict: str
) -> None:
    name, unit = ROW_NAMES[row]
    assert name in TARGETS
    assert against_target(name, median, unit) == verdict


def test_the_resident_memory_of_a_child_process_is_read() -> None:
    script = "import sys; block = bytearray(64 * 2**20); sys.stdin.read()"
    with subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE) as child:
        try:
            assert child.pid in child_pids()
            rss = None
            for _ in range(200):  # until the child has allocated its block
                rss = rss_mb_of(child.pid)
                if rss is not None and rss > 64:
                    break
                time.sleep(0.05)
            assert rss is not None
            assert rss > 64
        finally:
            assert child.stdin is not None
            child.stdin.close()


@pytest.mark.parametrize(
    ("value", "stages"),
    [
        pytest.param("lsp", {"lsp"}, id="one"),
        pytest.param("store, lsp", {"store", "lsp"}, id="two"),
    ],
)
def test_only_picks_the_stages_measured(value: str, stages: set[str]) -> None:
    from bench.__main__ import build_parser
    from bench.runner import BenchOptions

    only = build_parser().parse_args(["--only", value]).only
    assert only == stages
    options = BenchOptions(only=only)
    assert [stage for stage in STAGES if options.runs(stage)] == [
        stage for stage in STAGES if stage in stages
    ]


@pytest.mark.parametrize(
    "value", [pytest.param("search", id="unknown"), pytest.param(",", id="none")]
)
def test_only_refuses_a_stage_the_bench_lacks(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["--only", value])
    assert "pipeline, store, lsp, bge-m3" in capsys.readouterr().err

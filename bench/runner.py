"""``run_bench``: every measurement, in an order that keeps them from disturbing each other.

1. The bench index: the given ``qdrant_path``, or one under ``data_dir()/bench`` that is
   built (by a ``raggin-lsp index`` subprocess, timed) when it lacks the version.
2. In this process: model load, parsing, the share re-embedded for the newer version,
   indexing samples, warm searches; then this process's peak RSS.
3. In a worker process: the language server rows (the server is the worker's child).
4. In a worker process: the bge-m3 rows (2+ GB of model stay out of this process).
"""

import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from bench import DEFAULT_VERSION, NEWER_VERSION, bge_m3_speed, deprecations, lsp
from bench.report import LIGHT, BenchReport, Row
from bench.stats import (
    peak_rss_mb_children,
    peak_rss_mb_self,
    percentile,
    summarize,
    time_calls,
)
from raggin_lsp import paths
from raggin_lsp.errors import NotIndexedError, RagginError

if TYPE_CHECKING:  # the pipeline imports qdrant and onnxruntime: paid only when run
    from raggin_lsp.assistant import Assistant

BUILD_INFO = "bench-index.json"

T = TypeVar("T")


@dataclass(frozen=True)
class BenchOptions:
    profile: str = "light"
    version: str = DEFAULT_VERSION
    newer_version: str = NEWER_VERSION
    qdrant_path: Path | None = None
    repeat: int = 5
    quick: bool = False
    bge_m3: bool = True
    lsp: bool = True
    only: frozenset[str] | None = None  # the stages measured (``--only``); None: all

    def runs(self, stage: str) -> bool:
        """Whether ``stage`` (one of :data:`bench.STAGES`) is measured in this run."""
        return self.only is None or stage in self.only

    @property
    def index_sample(self) -> int:
        return 8 if self.quick else 64

    @property
    def request_runs(self) -> int:
        """Timed requests per latency row (a few per repeat)."""
        return max(3, self.repeat * (2 if self.quick else 4))

    @property
    def bge_m3_plan(self) -> bge_m3_speed.BgeM3Plan:
        return bge_m3_speed.BgeM3Plan(
            version=self.version,
            query_runs=self.request_runs,
            sample_texts=4 if self.quick else 16,
            sample_runs=self.repeat,
        )


Say = Callable[[str], None]


def default_index_path(profile: str, version: str) -> Path:
    return paths.data_dir() / "bench" / f"{profile}-{version}" / "qdrant"


def run_bench(options: BenchOptions, say: Say) -> BenchReport:
    from raggin_lsp.assistant import Assistant, AssistantConfig

    report = BenchReport()
    report.context.update(_context(options))
    index_path, build = _bench_index(options, say)
    report.context["index"] = str(index_path)

    if options.runs("pipeline"):
        assistant = Assistant(AssistantConfig(profile=options.profile, qdrant_path=index_path))
        try:
            if options.version not in assistant.indexed_versions():
                raise NotIndexedError(
                    f"{index_path} does not hold Next.js {options.version} "
                    f"({options.profile}). Index it with `raggin-lsp index {options.version} "
                    f"--profile {options.profile} --qdrant-path {index_path}`, or leave out "
                    "--qdrant-path."
                )
            report.add(*_in_process_rows(assistant, options, build, say))
            say("Timing the deprecation diagnostics of a 500-line file")
            catalog = assistant.api_catalog(NEWER_VERSION)
            report.add(deprecations.measure(catalog, options.repeat * 10))
        finally:
            assistant.close()
    if options.runs("store"):
        report.add(*_store_rows(index_path, options, say))

    if options.lsp and options.runs("lsp"):
        second = _second_profile_on_disk(index_path)
        report.context["second profile on disk"] = f"{second.name} ({_megabytes(second)} MB)"
        say("Timing the language server")
        plan = lsp.LspPlan(
            str(index_path),
            options.version,
            initialize_runs=options.repeat,
            request_runs=options.request_runs,
        )
        report.add(*_guarded("the LSP rows", lsp.unavailable_rows, lsp.measure_lsp, plan, say))
    elif options.runs("lsp"):
        report.add(*lsp.unavailable_rows("skipped with --no-lsp"))

    if options.bge_m3 and options.runs("bge-m3"):
        say("Timing the bge-m3 architecture with random weights (first run builds 2.3 GB)")
        plan_m3 = options.bge_m3_plan
        report.add(
            *_guarded(
                "the bge-m3 rows",
                bge_m3_speed.skipped_rows,
                bge_m3_speed.measure_bge_m3,
                plan_m3,
                say,
            )
        )
    elif options.runs("bge-m3"):
        report.add(*bge_m3_speed.skipped_rows("skipped with --no-bge-m3"))
    report.context["load average"] += f" at the start, {_load_average()} at the end"
    return report


def _load_average() -> str:
    """Other work on the machine slows every figure: the table says how busy it was."""
    try:
        return "/".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def _context(options: BenchOptions) -> dict[str, Any]:
    import onnxruntime

    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}",
        "python": platform.python_version(),
        "onnxruntime": onnxruntime.__version__,
        "profile": options.profile,
        "version": options.version,
        "mode": "quick" if options.quick else "full",
        "load average": _load_average(),  # 1/5/15 minutes
    }


# --- the index ---------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexBuild:
    """How the bench index was built, when the bench built it (now or in an earlier run)."""

    seconds: float
    built_at: float
    now: bool
    peak_rss_mb: float | None


def _bench_index(options: BenchOptions, say: Say) -> tuple[Path, IndexBuild | None]:
    if options.qdrant_path is not None:
        return options.qdrant_path, None
    path = default_index_path(options.profile, options.version)
    info_file = path.parent / BUILD_INFO
    if info_file.is_file():
        info = json.loads(info_file.read_text(encoding="utf-8"))
        return path, IndexBuild(info["seconds"], info["built_at"], False, info.get("peak_rss_mb"))
    say(
        f"Building the bench index of Next.js {options.version} ({options.profile}) in {path}; "
        "this is timed as the whole-version figure"
    )
    # Without its info file the folder is a build that did not finish: resuming it would
    # time only what was missing.
    shutil.rmtree(path, ignore_errors=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "raggin_lsp", "index", options.version]
    command += ["--profile", options.profile, "--qdrant-path", str(path)]
    started = time.perf_counter()
    # Progress bars go straight to this terminal's stderr.
    try:
        subprocess.run(command, check=True, stdout=sys.stderr, env=_child_env())
    except subprocess.CalledProcessError as error:
        raise RagginError(
            f"Building the bench index failed (exit code {error.returncode}); see above."
        ) from error
    build = IndexBuild(time.perf_counter() - started, time.time(), True, peak_rss_mb_children())
    info = {"seconds": build.seconds, "built_at": build.built_at, "peak_rss_mb": build.peak_rss_mb}
    info_file.write_text(json.dumps(info, indent=2), encoding="utf-8")
    return path, build


def _child_env() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    return env


# --- in this process ---------------------------------------------------------------------


def _in_process_rows(
    assistant: "Assistant", options: BenchOptions, build: IndexBuild | None, say: Say
) -> list[Row]:
    from bench.pipeline import (
        QUERIES,
        docs_download_seconds,
        index_sample_rates,
        parse_version,
        reembed_share,
        seconds_until_searchable,
        section_share,
        unique_sections,
    )
    from raggin_lsp.store.schema import distinct_texts

    say(f"Loading the {options.profile} model")
    started = time.perf_counter()
    assistant.load()
    load_seconds = time.perf_counter() - started
    embedder = assistant.embedder

    # The upgrade measured: to the newer version, or to this one when it is the newer.
    older, upgraded = (
        (options.version, options.newer_version)
        if options.version != options.newer_version
        else (DEFAULT_VERSION, options.version)
    )
    say(f"Parsing the Next.js {older} and {upgraded} docs")
    started = time.perf_counter()
    sections = parse_version(options.version, embedder)
    parse_seconds = time.perf_counter() - started
    before = sections if older == options.version else parse_version(older, embedder)
    after = sections if upgraded == options.version else parse_version(upgraded, embedder)
    changed, newer_total = reembed_share(before, after, embedder.spec)
    changed_sections, newer_sections = section_share(before, after)
    unique = len(unique_sections(sections))

    say(f"Indexing {options.repeat} samples of {options.index_sample} sections")
    rates = index_sample_rates(
        sections,
        options.version,
        embedder,
        sample_size=options.index_sample,
        repeat=options.repeat,
    )
    rate = summarize(rates)

    say(f"Timing how soon a fresh index of {options.version} answers searches (lexical pass)")
    lexical_seconds = seconds_until_searchable(sections, options.version, embedder)

    say(f"Timing the download of the {options.version} docs into an empty cache")
    download = docs_download_seconds(options.version)

    say(f"Timing {options.request_runs} warm searches")
    assistant.search("warm up", options.version, top_k=1)
    queries = iter(QUERIES * (options.request_runs // len(QUERIES) + 1))
    search_ms = [
        s * 1000
        for s in time_calls(
            lambda: assistant.search(next(queries), options.version, top_k=5),
            options.request_runs,
        )
    ]
    rows = [
        Row(LIGHT, "load the model", "s", load_seconds, note="embedder load, once"),
        Row(
            LIGHT,
            "parse a whole version",
            "s",
            parse_seconds,
            note=(
                f"{unique} sections, {len(distinct_texts(sections, embedder.spec))} texts "
                "to embed (paragraphs, headings, code)"
            ),
        ),
        Row.of(
            LIGHT,
            "index throughput, sample of real sections",
            "sections/s",
            rate,
            f"embed + store {options.index_sample} random sections of {options.version} "
            "into a fresh embedded Qdrant, per run",
        ),
        _whole_version_row(options, build, unique, rates),
        Row(
            LIGHT,
            "first search results, docs cached",
            "s",
            parse_seconds + lexical_seconds,
            note=(
                f"parse {parse_seconds:.1f} s + lexical pass {lexical_seconds:.1f} s (BM25, no "
                "neural model) into a fresh embedded Qdrant; dense vectors follow; add the "
                "docs download on an empty cache"
            ),
        ),
        _empty_cache_row(download, parse_seconds + lexical_seconds),
        Row(
            LIGHT,
            f"texts re-embedded for {upgraded} after {older}",
            "%",
            100 * changed / newer_total,
            note=(
                f"exact: {changed} of {newer_total} texts (paragraphs, headings, code) are "
                f"new; {changed_sections} of {newer_sections} sections changed"
            ),
        ),
        Row.of(LIGHT, "warm search latency", "ms", summarize(search_ms), "Assistant.search, top 5"),
    ]
    if build is not None and build.peak_rss_mb is not None:
        rows.append(
            Row(
                LIGHT,
                "peak RSS, `raggin-lsp index` process",
                "MB",
                build.peak_rss_mb,
                note="the whole-version build above",
            )
        )
    rows.append(
        Row(
            LIGHT,
            "peak RSS, bench process",
            "MB",
            peak_rss_mb_self(),
            note="model, two versions parsed, sample indexing, searches",
        )
    )
    return rows


def _second_profile_on_disk(index_path: Path) -> Path:
    """A second embedding profile's data beside the light one, as on a machine that
    indexed with both: the server must not pay for collections it does not search. It is
    a copy of the light collection under another profile's name (same size on disk)."""
    from raggin_lsp.store.embedded import (
        MANIFEST,
        SHARD,
        Manifest,
        ProfileFolder,
        copy_shard,
        profile_folders,
    )

    folders = [f for f in profile_folders(index_path) if not f.collection.endswith("bench")]
    target = index_path / "raggin_second-profile_bench"
    current = folders[0].current() if folders else None
    if current is not None and ProfileFolder(index_path, target.name).current() is None:
        copy = target / current.name
        copy_shard(current / SHARD, copy / SHARD)
        manifest = Manifest.read(current / MANIFEST)
        manifest.collection, manifest.profile, manifest.fingerprint = (
            target.name,
            "second-profile",
            "bench",
        )
        manifest.write(copy / MANIFEST)
    return target


def _megabytes(folder: Path) -> int:
    total = sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())
    return round(total / 2**20)


def _store_rows(index_path: Path, options: BenchOptions, say: Say) -> list[Row]:
    """A new `raggin-lsp search` process, end to end; the store's upsert throughput."""
    import tempfile

    from raggin_lsp.embed.catalog import get_profile_spec
    from raggin_lsp.store import DocsIndex, StoreSettings

    say(f"Timing {options.repeat} cold `raggin-lsp search` processes")
    command = [sys.executable, "-m", "raggin_lsp", "search", "revalidate a path on demand"]
    command += ["--version", options.version, "--profile", options.profile]
    command += ["--qdrant-path", str(index_path), "--json"]
    cold = []
    for _ in range(options.repeat):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=_child_env())
        cold.append(time.perf_counter() - started)

    say("Timing the store: upsert of stored points into a fresh embedded index")
    spec = get_profile_spec(options.profile)
    rates = []
    with DocsIndex.open(StoreSettings(path=index_path), spec) as source:
        for _ in range(max(1, options.repeat // 2)):
            with (
                tempfile.TemporaryDirectory(prefix="raggin-bench-upsert-") as folder,
                DocsIndex.open(StoreSettings(path=Path(folder)), spec) as target,
            ):
                report = source.push_version(options.version, target)
                rates.append(report.sections_total / report.seconds)

        say("Timing the import of an exported version (checksum, profile, store)")
        imports = []
        with tempfile.TemporaryDirectory(prefix="raggin-bench-import-") as folder:
            export = Path(folder) / f"next-{options.version}.raggin.gz"
            source.export_version(options.version, export)
            size_mb = export.stat().st_size / 2**20
            for run in range(max(1, options.repeat // 2)):
                with DocsIndex.open(StoreSettings(path=Path(folder) / f"i{run}"), spec) as target:
                    started = time.perf_counter()
                    target.import_file(export, version=options.version)
                    imports.append(time.perf_counter() - started)
    return [
        Row.of(
            LIGHT,
            "cold search: a new `raggin-lsp search` process",
            "s",
            summarize(cold),
            "end to end: Python start, model load, private index copy, query, JSON out",
        ),
        Row.of(
            LIGHT,
            "store upsert throughput (Qdrant Edge)",
            "points/s",
            summarize(rates),
            f"all {options.version} points with vectors, read from the index and written "
            "into a fresh one, published; no model",
        ),
        Row.of(
            LIGHT,
            "import an exported version",
            "s",
            summarize(imports),
            f"`index {options.version} --from FILE` without the CLI start: sha256 check, "
            f"read and store all points of a {size_mb:.0f} MB export into a fresh index",
        ),
    ]


def _empty_cache_row(download: float | str, searchable_seconds: float) -> Row:
    name = "first search results, empty cache"
    if isinstance(download, str):
        return Row.unavailable(LIGHT, name, "s", download)
    return Row(
        LIGHT,
        name,
        "s",
        download + searchable_seconds,
        note=f"docs download {download:.1f} s + the row above",
    )


def _whole_version_row(
    options: BenchOptions, build: IndexBuild | None, sections: int, rates: list[float]
) -> Row:
    name = f"whole-version index time, Next.js {options.version}"
    if build is None:
        return Row(
            LIGHT,
            name + " (extrapolated)",
            "min",
            sections / percentile(rates, 50) / 60,
            sections / percentile(rates, 5) / 60,  # the slow end: the p95 of times
            len(rates),
            note=f"{sections} sections at the sample rate (index given with --qdrant-path)",
        )
    when = (
        "now"
        if build.now
        else "in an earlier run, "
        + datetime.fromtimestamp(build.built_at, UTC).strftime("%Y-%m-%d")
    )
    return Row(
        LIGHT,
        name + " (measured)",
        "min",
        build.seconds / 60,
        note=f"`raggin-lsp index` built the bench index {when}: load, parse, embed, store",
    )


# --- worker processes --------------------------------------------------------------------


def _in_worker(function: Callable[[Any], T], argument: Any) -> T:
    """``function(argument)`` in a fresh process, so its memory and children are its own."""
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(function, argument).result()


def _guarded(
    stage: str,
    unavailable: Callable[[str], list[Row]],
    function: Callable[[Any], list[Row]],
    argument: Any,
    say: Say,
) -> list[Row]:
    """The worker's rows, or n/a rows naming the error: one broken stage keeps the table."""
    try:
        return _in_worker(function, argument)
    except Exception as error:  # the boundary of a whole stage, reported in its rows
        message = f"{type(error).__name__}: {error}".splitlines()[0][:160]
        say(f"Measuring {stage} failed: {message}")
        return unavailable(f"failed: {message}")

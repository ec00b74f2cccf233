"""The language server as an editor sees it: a real ``raggin-lsp serve`` subprocess over
stdio, driven by pytest-lsp's client, on the fixture project ``tests/fixtures/nextjs-project``.

This needs a source checkout (the fixture project and the fake Ollama live under
``tests/``) and the test extra (pytest-lsp). Without them every LSP row says why it is
n/a. The measurement runs in its own process (:func:`measure_lsp` is given to a spawned
worker), so the server is that worker's only child and ``RUSAGE_CHILDREN`` after it
exits is exactly the server's peak RSS.
"""

import asyncio
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable
from contextlib import AbstractContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.report import LSP, Row
from bench.stats import child_pids, peak_rss_mb_children, rss_mb_of, summarize

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_PROJECT = ROOT / "tests" / "fixtures" / "nextjs-project"
HOVER_FILE = "app/actions.ts"
HOVER_TERM = "revalidatePath('/blog')"
FAKE_MODEL = "qwen2.5-coder:7b"
READY_TIMEOUT = 300.0  # the first request waits for the model and index to load
ROW_NAMES = (
    ("initialize (spawn to InitializeResult)", "ms"),
    ("hover on revalidatePath", "ms"),
    ("raggin/search", "ms"),
    ("raggin/ask to first $/progress report (instant fake Ollama)", "ms"),
    ("peak RSS, language server process", "MB"),
    ("initialized to first answered raggin/search (fresh server)", "ms"),
    ("RSS, language server process after a search", "MB"),
    ("floor: spawn to exit of `python -c 'import pygls.lsp.server'`", "ms"),
    ("floor: a bare pygls server, spawn to InitializeResult", "ms"),
)
# What any pygls server pays before it can answer `initialize`: the interpreter's start
# and the import of pygls and lsprotocol's types (most of it), and nothing of ours.
FLOOR_COMMAND = ("-c", "import pygls.lsp.server")
# The same, plus what any pygls server does before it answers: build its converters,
# read stdin, answer (as the initialize row measures it, through pytest-lsp's client).
BARE_SERVER = "from pygls.lsp.server import LanguageServer; LanguageServer('bare', 'v0').start_io()"
# Issue 14's targets, by row: the table says whether each median meets its target.
TARGETS = {
    ROW_NAMES[0][0]: 300.0,  # nothing heavy is imported before the InitializeResult
    ROW_NAMES[3][0]: 50.0,  # the instant fake's first token: all of it is our overhead
    ROW_NAMES[6][0]: 400.0,
}


@dataclass(frozen=True)
class LspPlan:
    qdrant_path: str
    version: str
    initialize_runs: int
    request_runs: int


def against_target(name: str, median: float, unit: str) -> str:
    """``target < 300 ms: met`` (or missed), for a row that has a target."""
    target = TARGETS[name]
    return f"target < {target:g} {unit}: {'met' if median < target else 'missed'}"


def unavailable_rows(reason: str) -> list[Row]:
    return [Row.unavailable(LSP, name, unit, reason) for name, unit in ROW_NAMES]


def missing_requirement() -> str | None:
    """Why the LSP rows cannot be measured here, or None when they can."""
    if importlib.util.find_spec("pytest_lsp") is None:
        return "pytest-lsp not installed: pip install -e '.[test]'"
    if not FIXTURE_PROJECT.is_dir():
        return f"needs a source checkout: {FIXTURE_PROJECT} is missing"
    if not (ROOT / "tests" / "support" / "fake_ollama.py").is_file():
        return "needs a source checkout: tests/support/fake_ollama.py is missing"
    return None


def measure_lsp(plan: LspPlan) -> list[Row]:
    """Every LSP row (runs in a worker process; see the module docstring)."""
    reason = missing_requirement()
    if reason is not None:
        return unavailable_rows(reason)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # for tests.support.fake_ollama
    with tempfile.TemporaryDirectory(prefix="raggin-bench-lsp-") as folder:
        project = Path(folder) / "nextjs-project"
        shutil.copytree(FIXTURE_PROJECT, project)
        _byte_compile()
        floor = _floor_ms(plan.initialize_runs, _server_env(Path(folder)))
        rows = asyncio.run(_measure(plan, project, Path(folder), floor))
    rows.append(
        Row(
            LSP,
            *ROW_NAMES[4],
            peak_rss_mb_children(),
            note="the server subprocess, after the requests above (getrusage of its parent)",
        )
    )
    return rows


def server_command() -> list[str]:
    """``python -m raggin_lsp serve``, as the editors start it."""
    return [sys.executable, "-m", "raggin_lsp", "serve", "--log-level", "WARNING"]


def _server_env(folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    # The user's own settings must not change what is measured.
    env["RAGGIN_CONFIG_FILE"] = str(folder / "no-config.yaml")
    return env


@asynccontextmanager
async def _session(
    project: Path,
    options: dict[str, Any],
    env: dict[str, str],
    command: list[str] | None = None,
) -> AsyncIterator[tuple[Any, float]]:
    from lsprotocol import types
    from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

    config = ClientServerConfig(server_command=command or server_command(), server_env=env)
    started = time.perf_counter()
    client = await config.start()
    assert isinstance(client, LanguageClient)
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual_studio_code"),
                root_uri=project.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name=project.name)],
                initialization_options=options,
            )
        )
        yield client, time.perf_counter() - started
    finally:
        try:
            await asyncio.wait_for(client.shutdown_session(), 30)
        finally:
            await client.stop()  # type: ignore[no-untyped-call]


def _byte_compile() -> None:
    """Byte-compile the package as ``pip install`` does a wheel's (pygls and lsprotocol
    came that way): a source checkout under ``PYTHONDONTWRITEBYTECODE`` would otherwise
    compile every module of the server at each start, 200 ms and more before
    ``initialize`` that no installed server pays."""
    import compileall

    compileall.compile_dir(str(ROOT / "raggin_lsp"), quiet=1)


def _floor_ms(runs: int, env: dict[str, str]) -> list[float]:
    """Milliseconds from spawn to exit of a Python that imports pygls's server, ``runs``
    times (one more first, not counted, so every timed run finds the files cached)."""
    command = [sys.executable, *FLOOR_COMMAND]
    subprocess.run(command, check=True, env=env)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=True, env=env)
        times.append((time.perf_counter() - started) * 1000)
    return times


async def _measure(plan: LspPlan, project: Path, folder: Path, floor: list[float]) -> list[Row]:
    from bench.pipeline import QUERIES
    from tests.support.fake_ollama import FakeOllama, FakeScript

    env = _server_env(folder)
    fake: AbstractContextManager[Any] = FakeOllama(
        FakeScript(models=(FAKE_MODEL,), reply=["Use ", "`revalidatePath` ", "[1]."])
    )
    with fake as ollama:
        options = {
            "profile": "light",
            "qdrantPath": plan.qdrant_path,
            "ollamaHost": ollama.host,
            "model": FAKE_MODEL,
            "autoIndex": False,
            # The fixture project pins another release: measure the version benched.
            "nextVersion": plan.version,
        }
        initialize: list[float] = []
        first_search: list[float] = []
        for _ in range(max(1, plan.initialize_runs - 1)):
            async with _session(project, options, env) as (client, seconds):
                initialize.append(seconds)
                first_search.append(await _timed(_search(client, plan, QUERIES[0])))
        async with _session(project, options, env) as (client, seconds):
            initialize.append(seconds)
            hover, search, rss, ask = await _requests(client, project, plan)
    bare: list[float] = []
    for _ in range(plan.initialize_runs):
        async with _session(project, {}, env, [sys.executable, "-c", BARE_SERVER]) as (_, seconds):
            bare.append(seconds * 1000)
    started = summarize([s * 1000 for s in initialize])
    floor_ms, bare_ms = summarize(floor), summarize(bare)
    first_report = summarize(ask)
    rows = [
        Row.of(
            LSP,
            *ROW_NAMES[0],
            started,
            f"fresh server each, byte-compiled as installed; "
            f"{against_target(ROW_NAMES[0][0], started.median, 'ms')}; "
            f"{started.median - bare_ms.median:.0f} ms above a bare pygls server (below)",
        ),
        Row.of(
            LSP,
            *ROW_NAMES[7],
            floor_ms,
            "the interpreter and pygls + lsprotocol imported, nothing of raggin: what any "
            "pygls server pays before it can answer",
        ),
        Row.of(
            LSP,
            *ROW_NAMES[8],
            bare_ms,
            "LanguageServer('bare', 'v0').start_io(), no feature: measured as the initialize "
            "row is (spawn, pytest-lsp's client, the InitializeResult)",
        ),
        Row.of(LSP, *ROW_NAMES[1], summarize(hover), f"{HOVER_FILE}, warm (model loaded)"),
        Row.of(LSP, *ROW_NAMES[2], summarize(search), "warm, top 5, a question list"),
        Row.of(
            LSP,
            *ROW_NAMES[3],
            first_report,
            "retrieval + prompt + first streamed chunk, all overhead as the fake answers "
            f"at once; {against_target(ROW_NAMES[3][0], first_report.median, 'ms')}",
        ),
        Row.of(
            LSP,
            *ROW_NAMES[5],
            summarize(first_search),
            "waits for the model and the index to load in the background",
        ),
    ]
    if rss is None:
        rows.append(Row.unavailable(LSP, *ROW_NAMES[6], "needs Linux /proc"))
    else:
        rows.append(
            Row(
                LSP,
                *ROW_NAMES[6],
                rss,
                note="VmRSS after the warm searches, light profile; "
                + against_target(ROW_NAMES[6][0], rss, "MB"),
            )
        )
    return rows


async def _requests(
    client: Any, project: Path, plan: LspPlan
) -> tuple[list[float], list[float], float | None, list[float]]:
    from lsprotocol import types

    from bench.pipeline import QUERIES

    path = project / HOVER_FILE
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="typescript", version=1, text=text
            )
        )
    )
    index = text.index(HOVER_TERM) + 3
    line = text.count("\n", 0, index)
    position = types.Position(line=line, character=index - (text.rfind("\n", 0, index) + 1))
    hover_params = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position
    )

    async def hover() -> None:
        result = await client.text_document_hover_async(hover_params)
        if result is None or "revalidatePath" not in str(result.contents):
            raise RuntimeError(f"the hover on revalidatePath answered {result!r}")

    async def search(query: str) -> None:
        await _search(client, plan, query)

    await asyncio.wait_for(hover(), READY_TIMEOUT)  # waits for the model and the index
    await asyncio.wait_for(search(QUERIES[0]), READY_TIMEOUT)
    hovers = [await _timed(hover()) for _ in range(plan.request_runs)]
    searches: list[float] = []
    for n in range(plan.request_runs):
        query = QUERIES[n % len(QUERIES)]
        searches.append(await _timed(search(query)))
    rss = _server_rss_mb()
    asks = [await _first_report(client, plan, uri, n) for n in range(plan.request_runs)]
    return hovers, searches, rss, asks


def _server_rss_mb() -> float | None:
    """The server's resident memory now: it is this worker's only child process."""
    children = child_pids()
    if len(children) != 1:
        return None
    return rss_mb_of(children[0])


async def _search(client: Any, plan: LspPlan, query: str) -> None:
    params = {"query": query, "version": plan.version, "topK": 5}
    results = await asyncio.wait_for(
        client.protocol.send_request_async("raggin/search", params), READY_TIMEOUT
    )
    if not results:
        raise RuntimeError(f"raggin/search found nothing for {query!r}")


async def _timed(request: Awaitable[Any]) -> float:
    """Milliseconds until ``request`` (a coroutine, not started yet) completes."""
    started = time.perf_counter()
    await request
    return (time.perf_counter() - started) * 1000


async def _first_report(client: Any, plan: LspPlan, uri: str, n: int) -> float:
    """Milliseconds from sending ``raggin/ask`` to its first ``report`` progress message."""
    from lsprotocol import types

    token = f"raggin-bench-ask-{n}"
    # A client-chosen workDoneToken is valid LSP; registering it keeps pytest-lsp from
    # warning about a token the server never created.
    client.progress_reports.setdefault(token, [])
    params = {
        "question": "How do I revalidate a path after a server action?",
        "textDocument": {"uri": uri},
        "version": plan.version,
        "workDoneToken": token,
    }
    started = time.perf_counter()
    answer = asyncio.ensure_future(client.protocol.send_request_async("raggin/ask", params))
    first: float | None = None
    while first is None:
        reports = client.progress_reports.get(token, [])
        if any(isinstance(report, types.WorkDoneProgressReport) for report in reports):
            first = (time.perf_counter() - started) * 1000
            break
        if answer.done():
            answer.result()  # raises the server's error, if it answered with one
            raise RuntimeError("raggin/ask answered without any $/progress report")
        waiter = client.protocol.wait_for_notification_async(types.PROGRESS)
        done, _ = await asyncio.wait(
            {asyncio.ensure_future(waiter), answer},
            timeout=READY_TIMEOUT,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if not done:
            raise TimeoutError("raggin/ask sent no $/progress report in time")
    await asyncio.wait_for(answer, READY_TIMEOUT)
    return first

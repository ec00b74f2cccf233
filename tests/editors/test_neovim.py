"""The Neovim plugin, loaded for real in a headless Neovim, against the real server.

``nvim/drive_raggin.lua`` sets the plugin up on the fixture project (Debian's Neovim 0.7
takes the plugin's pre-0.11 path: a FileType autocommand and ``vim.lsp.start_client``),
hovers over ``revalidatePath``, sends ``raggin/search`` with ``client.request_sync``, runs
the ``:RagginAsk`` code path (the answer streams into the Markdown split) and
``:RagginVersion``'s request, opens a file that uses an API the 16.2.0 docs deprecate
(``next/legacy/image``), waits for the published diagnostic, picks its quick fix from
``vim.lsp.buf.code_action()``'s menu and waits for the diagnostic to clear, and prints one
JSON line per step for the checks below.
"""

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.editors.conftest import (
    DEPRECATED_FILE,
    DEPRECATED_TEXT,
    FAKE_REPLY,
    ROOT,
    EditorSetup,
)

PLUGIN = ROOT / "editors" / "neovim"
DRIVER = Path(__file__).parent / "nvim" / "drive_raggin.lua"
NVIM = shutil.which("nvim")

pytestmark = pytest.mark.skipif(NVIM is None, reason="needs Neovim (apt-get install neovim)")


def _lua_files() -> list[Path]:
    return sorted(PLUGIN.rglob("*.lua"))


@pytest.mark.parametrize("path", _lua_files(), ids=lambda path: path.name)
def test_plugin_lua_parses_in_neovim(path: Path) -> None:
    assert NVIM is not None
    script = f"local f, e = loadfile({json.dumps(str(path))}); io.stdout:write(f and 'ok' or e)"
    run = subprocess.run(
        [NVIM, "--headless", "-u", "NONE", "-c", f"lua {script}", "-c", "qall!"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.stdout.strip() == "ok", run.stdout + run.stderr


@pytest.fixture(scope="module")
def neovim_run(editor_setup: EditorSetup) -> dict[str, dict[str, Any]]:
    assert NVIM is not None
    deprecated = editor_setup.project / DEPRECATED_FILE
    deprecated.write_text(DEPRECATED_TEXT, encoding="utf-8")
    env = {
        **editor_setup.env,
        "RAGGIN_PLUGIN_DIR": str(PLUGIN),
        "RAGGIN_PROJECT": str(editor_setup.project),
        "RAGGIN_SERVER_COMMAND": json.dumps(editor_setup.command),
        "RAGGIN_INIT_OPTIONS": editor_setup.init_options_json(),
        "RAGGIN_DEPRECATED_FILE": str(deprecated),
    }
    run = subprocess.run(
        [NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {DRIVER}"],
        cwd=editor_setup.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=15 * 60,
    )
    events: dict[str, dict[str, Any]] = {}
    for line in run.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            events[record["event"]] = record
    assert "error" not in events, f"{events['error']['message']}\n{run.stderr[-3000:]}"
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout}\n{run.stderr[-3000:]}"
    return events


def test_plugin_starts_the_server_for_a_typescript_buffer(
    neovim_run: dict[str, dict[str, Any]], editor_setup: EditorSetup
) -> None:
    attached = neovim_run["attached"]
    assert attached["ok"]
    assert attached["filetype"] == "typescript"
    assert Path(attached["root"]) == editor_setup.project  # found through package.json
    assert neovim_run["stopped"]["ok"]


def test_hover_shows_the_docs_of_the_project_version(
    neovim_run: dict[str, dict[str, Any]], editor_setup: EditorSetup
) -> None:
    value = neovim_run["hover"]["value"]
    assert isinstance(value, str), "no hover on revalidatePath"
    assert f"Next.js {editor_setup.version} docs" in value
    assert "](https://nextjs.org/docs/" in value


def test_search_through_request_sync(
    neovim_run: dict[str, dict[str, Any]], editor_setup: EditorSetup
) -> None:
    search = neovim_run["search"]
    assert search["err"] is None
    assert search["results"], "no search results"
    assert {result["version"] for result in search["results"]} == {editor_setup.version}
    assert all(r["url"].startswith("https://nextjs.org/docs/") for r in search["results"])


def test_ask_streams_into_the_answer_window(neovim_run: dict[str, dict[str, Any]]) -> None:
    ask = neovim_run["ask"]
    assert ask["done"]
    assert ask["err"] is None
    assert ask["reports"] >= 2, "the answer arrived in several progress reports"
    assert ask["streamed"] == FAKE_REPLY
    assert FAKE_REPLY.split()[0] in (ask["while_streaming"] or ""), "text shown before the end"
    assert ask["answer"] in ask["buffer"], "the final answer replaces the streamed text"
    assert ask["citations"], "the answer cites its sources"
    for citation in ask["citations"]:
        assert citation["url"] in ask["buffer"], "citations are links in the answer window"
    assert ask["history"][0]["question"].startswith("How do I revalidate")


def test_version_request_reports_the_project_version(
    neovim_run: dict[str, dict[str, Any]], editor_setup: EditorSetup
) -> None:
    versions = neovim_run["versions"]
    assert versions["selected"] == editor_setup.version
    assert editor_setup.version in versions["indexed"]


def test_ragginstatus_shows_each_version_and_how_it_is_searched(
    neovim_run: dict[str, dict[str, Any]], editor_setup: EditorSetup
) -> None:
    line = neovim_run["status"]["line"]
    assert line.startswith("Next.js docs: ")
    assert f"{editor_setup.version} (hybrid)" in line
    assert neovim_run["status"]["while_indexing"] == (
        "Next.js docs: 16.2.0 (hybrid), 16.4.6 (lexical only, dense 40%)"
    )
    # With bge-m3 configured, light answers 16.4.6 until its bge-m3 index is complete.
    assert neovim_run["status"]["while_upgrading"] == (
        "Next.js docs: 16.2.0 (hybrid), 16.4.6 (light, lexical only, dense 40%)"
    )


def test_deprecated_api_gets_a_published_diagnostic(neovim_run: dict[str, dict[str, Any]]) -> None:
    shown = neovim_run["diagnostic"]
    assert shown["line"] == "import Image from 'next/legacy/image'"
    [item] = shown["items"]
    assert (item["lnum"], item["col"], item["end_col"]) == (0, 18, 37)  # 'next/legacy/image'
    assert "next/legacy/image" in item["message"]
    assert "next/image" in item["message"].replace("next/legacy/image", "")
    assert item["code"] == "deprecated-api"
    assert item["severity"] == 3  # vim.diagnostic.severity.INFO: deprecated, not removed
    assert item["href"].startswith("https://nextjs.org/docs/")


def test_quick_fix_is_offered_and_applying_it_clears_the_diagnostic(
    neovim_run: dict[str, dict[str, Any]],
) -> None:
    quickfix = neovim_run["quickfix"]
    fixes = [action for action in quickfix["offered"] if action["has_edit"]]
    assert [fix["kind"] for fix in fixes] == ["quickfix"]
    assert fixes[0]["fixes"] == 1, "the quick fix carries its diagnostic"
    assert quickfix["applied"] == fixes[0]["title"]
    assert quickfix["line"] == "import Image from 'next/image'"
    assert quickfix["remaining"] == []

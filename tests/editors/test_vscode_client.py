"""The VS Code client stack (vscode-languageserver-protocol over stdio) against the server.

Runs ``editors/vscode/test/stdio.test.mjs`` with ``node --test``: initialize, hovers,
``raggin/search``, and a streamed ``raggin/ask`` plus a follow-up with history, answered by
an in-process fake Ollama, and a deprecated API's diagnostic, pulled as VS Code pulls them,
with its quick fix applied until the diagnostic clears. Then checks, on the fake's side,
that the follow-up really carried the conversation. ``render.test.mjs`` (the panel's
Markdown and history) runs in the same node process. A second test builds the extension
and packages the ``.vsix``.
"""

import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.editors.conftest import (
    DEPRECATED_FILE,
    DEPRECATED_TEXT,
    FAKE_REPLY,
    ROOT,
    EditorSetup,
)

VSCODE = ROOT / "editors" / "vscode"
NODE_TIMEOUT = 15 * 60

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or shutil.which("npm") is None, reason="needs node and npm"
)


def _install_node_modules() -> None:
    """``npm ci`` unless node_modules already matches package-lock.json."""
    stamp = VSCODE / "node_modules" / ".package-lock.json"
    lock = VSCODE / "package-lock.json"
    if stamp.exists() and stamp.stat().st_mtime >= lock.stat().st_mtime:
        return
    subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund"],
        cwd=VSCODE,
        check=True,
        timeout=10 * 60,
        capture_output=True,
    )


def test_vscode_protocol_client_over_stdio(editor_setup: EditorSetup) -> None:
    _install_node_modules()
    deprecated = editor_setup.project / DEPRECATED_FILE
    deprecated.write_text(DEPRECATED_TEXT, encoding="utf-8")
    env = {
        **editor_setup.env,
        "RAGGIN_SERVER_COMMAND": json.dumps(editor_setup.command),
        "RAGGIN_PROJECT": str(editor_setup.project),
        "RAGGIN_VERSION": editor_setup.version,
        "RAGGIN_INIT_OPTIONS": editor_setup.init_options_json(),
        "RAGGIN_FAKE_REPLY": FAKE_REPLY,
        "RAGGIN_DEPRECATED_FILE": str(deprecated),
    }
    run = subprocess.run(
        ["node", "--test", "--test-reporter=spec", "test/stdio.test.mjs", "test/render.test.mjs"],
        cwd=VSCODE,
        env=env,
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT,
    )
    report = f"{run.stdout}\n{run.stderr}"
    assert run.returncode == 0, report
    assert re.search(r"\bpass [1-9]", run.stdout), report
    assert re.search(r"\bfail 0\b", run.stdout), report
    assert re.search(r"\bskipped 0\b", run.stdout), report

    chats = editor_setup.fake.chat_requests
    assert len(chats) == 2, f"expected the answer and the follow-up, got {len(chats)} chats"
    follow_up = json.dumps(chats[-1]["messages"])
    assert "How do I revalidate the blog page after creating a post?" in follow_up
    assert "revalidatePath('/blog')" in follow_up, "the first answer is part of the history"


def test_vscode_extension_compiles_and_packages(tmp_path: Path) -> None:
    _install_node_modules()
    compiled = subprocess.run(
        ["npm", "run", "compile"], cwd=VSCODE, capture_output=True, text=True, timeout=300
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    vsix = tmp_path / "raggin.vsix"
    packaged = subprocess.run(
        ["npx", "--no-install", "@vscode/vsce", "package", "--no-dependencies", "-o", str(vsix)],
        cwd=VSCODE,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert packaged.returncode == 0, packaged.stdout + packaged.stderr
    with zipfile.ZipFile(vsix) as archive:
        names = set(archive.namelist())
    assert {
        "extension/out/extension.js",
        "extension/media/panel.js",
        "extension/package.json",
    } <= names
    # Only what is built from this folder: no sources, tests or node_modules.
    assert not [
        n
        for n in names
        if n.startswith(("extension/node_modules", "extension/src", "extension/test"))
    ]

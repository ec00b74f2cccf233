"""The language server answers ``initialize`` before importing anything heavy (issue 14).

Editors wait for the InitializeResult before they show the server as started; the index,
the model, Ollama's client and the parsers load afterwards, in the background. The test
runs what editors run, ``python -m raggin_lsp serve``, with ``-X importtime`` (CPython
then writes one stderr line per module as it imports it), sends ``initialize``, kills the
process as soon as the answer arrives, and reads which modules it had imported by then.
"""

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.e2e.wire_harness import ROOT
from tests.support.jsonrpc_wire import frame

# Packages that cost tens to hundreds of milliseconds (or hundreds of MB) to import, and
# that no part of the answer to `initialize` needs.
HEAVY = {
    "fastembed",
    "httpx",
    "huggingface_hub",
    "mcp",
    "mistune",
    "numpy",
    "ollama",
    "onnxruntime",
    "qdrant_client",
    "qdrant_edge",
    "tokenizers",
    "tqdm",
    "tree_sitter",
    "tree_sitter_typescript",
    "yaml",
}
# Stdlib modules the server does not need to start, but that are slow to import.
HEAVY_MODULES = {"importlib.metadata"}
TIMEOUT = 120.0  # a loaded CI machine


def imported_modules(importtime_output: str) -> list[str]:
    """The modules named by ``-X importtime`` lines, in import order."""
    names = []
    for line in importtime_output.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":  # the header line
                names.append(name)
    return names


async def _read_message(stdout: asyncio.StreamReader) -> dict[str, Any]:
    header = await stdout.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in header.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    message: dict[str, Any] = json.loads(await stdout.readexactly(length))
    return message


async def _modules_imported_until_initialize_answers(tmp_path: Path) -> list[str]:
    env = {
        **os.environ,
        "RAGGIN_CONFIG_FILE": str(tmp_path / "no-user-config.yaml"),
        "RAGGIN_DATA_DIR": str(tmp_path / "data"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    trace = tmp_path / "importtime.txt"
    with trace.open("wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "-X", "importtime", "-m", "raggin_lsp", "serve"],
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env=env,
            cwd=tmp_path,
        )
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        initialize = {
            "processId": os.getpid(),
            "rootUri": tmp_path.as_uri(),
            "capabilities": {},
            "initializationOptions": {
                "profile": "light",
                "qdrantPath": str(tmp_path / "qdrant"),
                "autoIndex": False,
            },
        }
        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize}
        process.stdin.write(frame(json.dumps(body).encode("utf-8")))
        await process.stdin.drain()
        while True:
            message = await asyncio.wait_for(_read_message(process.stdout), TIMEOUT)
            if message.get("id") == 1:
                break
        assert "capabilities" in message.get("result", {}), message
    finally:
        process.kill()  # now: nothing imported after the answer may count
        await process.wait()
    return imported_modules(trace.read_text(encoding="utf-8"))


async def test_initialize_is_answered_before_any_heavy_import(tmp_path: Path) -> None:
    modules = await _modules_imported_until_initialize_answers(tmp_path)
    # The trace is read: the server's own protocol stack is in it.
    assert {"pygls.lsp.server", "raggin_lsp.server.features"} <= set(modules)
    heavy = [m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY_MODULES]
    assert heavy == []


def test_the_importtime_reader_names_each_module() -> None:
    output = (
        "import time: self [us] | cumulative | imported package\n"
        "import time:       120 |        120 |   yaml.reader\n"
        "import time:      3000 |       3120 | yaml\n"
    )
    assert imported_modules(output) == ["yaml.reader", "yaml"]

"""Smoke-test an installed ``raggin-lsp`` command, as CI does after installing the wheel.

Runs ``raggin-lsp --version``, ``raggin-lsp versions --json`` and an LSP ``initialize``
(then ``shutdown`` and ``exit``) against ``raggin-lsp serve`` over stdio, from an empty
temporary folder so nothing of the source checkout is on the command's path. Only the
standard library and :mod:`tests.support.jsonrpc_wire` are used, so any Python 3.11 can
run it from the repository root::

    python3 -m tests.support.wheel_smoke /tmp/wheel-venv/bin/raggin-lsp

Prints one line per check and exits non-zero on the first failure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.support.jsonrpc_wire import WireClient

TIMEOUT_S = 120.0


def _run(command: list[str], cwd: Path) -> str:
    completed = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )
    if completed.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} exited {completed.returncode}:\n{completed.stderr[-3000:]}"
        )
    return completed.stdout


async def _initialize(raggin: str, cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    async with WireClient.spawn([raggin, "serve"], cwd=cwd, env=env) as wire:
        params = {"processId": os.getpid(), "rootUri": cwd.as_uri(), "capabilities": {}}
        result: dict[str, Any] = await wire.call("initialize", params, timeout=TIMEOUT_S)
        wire.notify("initialized", {})
        return result


def smoke(raggin: str) -> None:
    with tempfile.TemporaryDirectory(prefix="raggin-wheel-smoke-") as folder:
        cwd = Path(folder)
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)  # the installed package only, never the checkout
        env["RAGGIN_CONFIG_FILE"] = str(cwd / "no-config.yaml")

        version = _run([raggin, "--version"], cwd).strip()
        print(f"ok  raggin-lsp --version: {version}")

        catalog = json.loads(_run([raggin, "versions", "--json"], cwd))
        if not catalog.get("versions") or not catalog.get("latest"):
            raise SystemExit(f"raggin-lsp versions --json listed no version: {catalog}")
        print(
            f"ok  raggin-lsp versions --json: {len(catalog['versions'])} releases, "
            f"latest {catalog['latest']} ({catalog['origin']})"
        )

        result = asyncio.run(_initialize(raggin, cwd, env))
        info = result.get("serverInfo", {})
        if info.get("name") != "raggin-lsp" or "capabilities" not in result:
            raise SystemExit(f"unexpected InitializeResult: {json.dumps(result)[:2000]}")
        print(f"ok  initialize over stdio: serverInfo {info}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raggin", help="the installed raggin-lsp command (a path)")
    args = parser.parse_args(argv)
    smoke(args.raggin)
    return 0


if __name__ == "__main__":
    sys.exit(main())

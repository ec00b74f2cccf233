"""The real server over raw stdio, for the fault tests: ``python -m raggin_lsp serve``.

:func:`serve_over_wire` starts it with the light profile, an empty index folder, no
workspace and autoIndex off (nothing is indexed, nothing downloaded beyond what the
light profile caches), Ollama pointed at a closed port, and a
:class:`~tests.support.jsonrpc_wire.WireClient` that has already said ``initialize``
and ``initialized`` and opened a page holding :data:`PAGE_TEXT`. The ``wire`` fixture
(tests/e2e/conftest.py) gives each test its own.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.fake_ollama import closed_port_host
from tests.support.jsonrpc_wire import WireClient

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "raggin_lsp", "serve"]
# A page with a Next.js term: `Link`, on line 0 from character 7.
PAGE_TEXT = (
    'import Link from "next/link";\n'
    "\n"
    "export default function Page() {\n"
    '  const title = "Blog";\n'
    '  return <Link href="/blog">{title}</Link>;\n'
    "}\n"
)


@dataclass
class Wire:
    client: WireClient
    page_uri: str  # PAGE_TEXT, opened


@asynccontextmanager
async def serve_over_wire(tmp_path: Path) -> AsyncIterator[Wire]:
    env = {
        "RAGGIN_CONFIG_FILE": str(tmp_path / "no-user-config.yaml"),
        "RAGGIN_DATA_DIR": str(tmp_path / "data"),
        # The package runs from this checkout, whether or not it is installed.
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    options = {
        "profile": "light",
        "qdrantPath": str(tmp_path / "qdrant"),
        "autoIndex": False,
        "ollamaHost": closed_port_host(),
    }
    page = tmp_path / "page.tsx"
    page.write_text(PAGE_TEXT, encoding="utf-8")
    async with WireClient.spawn(SERVER, env=env, cwd=tmp_path) as client:
        params = {
            "processId": os.getpid(),
            "rootUri": None,
            "capabilities": {},
            "initializationOptions": options,
        }
        await client.call("initialize", params, timeout=60)
        client.notify("initialized", {})
        document = {"uri": page.as_uri(), "languageId": "typescriptreact", "version": 1}
        client.notify("textDocument/didOpen", {"textDocument": {**document, "text": PAGE_TEXT}})
        yield Wire(client, page.as_uri())

"""``raggin-lsp mcp``: the MCP server over stdio (default) or streamable HTTP on loopback.

Settings, highest precedence first: these command-line options, the project's
``.raggin.yaml``, the user's ``~/.config/raggin/config.yaml``, the defaults; the same
keys and checks as the language server (:mod:`raggin_lsp.settings`).
"""

import argparse
import asyncio
import contextlib
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from raggin_lsp import package_version, paths
from raggin_lsp.settings import WORKSPACE_FILE, SettingsStore

if TYPE_CHECKING:
    from raggin_lsp.mcp.server import RagginMCPServer
    from raggin_lsp.mcp.tools import DocsTools

log = logging.getLogger(__name__)

DEFAULT_PORT = 2088  # next to the language server's 2087
# Command-line option -> the setting it gives (the settings files' spelling).
_OPTION_SETTINGS = {
    "profile": "profile",
    "model_path": "modelPath",
    "qdrant_path": "qdrantPath",
    "qdrant_url": "qdrantUrl",
    "qdrant_api_key": "qdrantApiKey",
    "next_version": "nextVersion",
    "ollama_host": "ollamaHost",
    "model": "model",
}


def add_mcp_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project",
        type=Path,
        help="the Next.js project whose version the tools default to (default: this folder)",
    )
    parser.add_argument(
        "--http",
        action="store_true",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address for --http (default 127.0.0.1: this machine)"
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port for --http (default {DEFAULT_PORT})"
    )
    parser.add_argument("--profile", help="embedding profile (bge-m3; light is offline and small)")
    parser.add_argument("--model-path", help="load the embedding model from this folder")
    parser.add_argument("--qdrant-path", help="embedded index folder")
    parser.add_argument("--qdrant-url", help="a Qdrant server or cluster instead")
    parser.add_argument("--qdrant-api-key", help="API key for --qdrant-url")
    parser.add_argument(
        "--next-version", help="docs version for every call (default auto: the project's)"
    )
    parser.add_argument(
        "--ollama-host", help="Ollama server; setting it (or --model) adds the ask tool"
    )
    parser.add_argument("--model", help="Ollama model for the ask tool")


def settings_store(args: argparse.Namespace, project: Path) -> tuple[SettingsStore, list[str]]:
    """The settings layers for this run, and the problems found in them."""
    store = SettingsStore(order=("arguments", "workspace", "user"))
    problems = store.update_file("user", paths.config_file())
    problems += store.update_file("workspace", project / WORKSPACE_FILE)
    given = {
        key: getattr(args, option)
        for option, key in _OPTION_SETTINGS.items()
        if getattr(args, option, None) is not None
    }
    problems += store.update("arguments", given, source="command line", base=Path.cwd())
    return store, problems


def run_mcp(args: argparse.Namespace) -> int:
    from raggin_lsp.mcp.server import create_server
    from raggin_lsp.mcp.tools import DocsTools

    project = (args.project or Path.cwd()).expanduser().resolve()
    store, problems = settings_store(args, project)
    for problem in problems:
        log.warning("raggin settings: %s", problem)
    tools = DocsTools(
        store.effective(),
        project,
        ollama_configured=store.given("ollama_host") or store.given("model"),
    )
    server = create_server(tools, version=package_version())
    try:
        asyncio.run(_serve(server, tools, args))
    except KeyboardInterrupt:
        pass
    finally:
        tools.close()
    return 0


async def _serve(server: "RagginMCPServer", tools: "DocsTools", args: argparse.Namespace) -> None:
    # Load the model and open the index while the client initializes.
    warm = asyncio.create_task(tools.warm_up())
    try:
        if args.http:
            print(f"raggin MCP server at http://{args.host}:{args.port}/mcp", file=sys.stderr)
            await server.run_streamable_http_async(host=args.host, port=args.port)
        else:
            await server.run_stdio_async()
    finally:
        warm.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await warm

"""``raggin-lsp mcp``: the MCP server for AI coding agents (stdio; --http for HTTP)."""

import argparse
from typing import Any


def _run(args: argparse.Namespace) -> int:
    from raggin_lsp.mcp.entry import run_mcp  # imports the MCP SDK: only this command pays

    return run_mcp(args)


def add_mcp_command(subparsers: Any) -> None:
    from raggin_lsp.mcp.entry import add_mcp_arguments

    parser = subparsers.add_parser(
        "mcp",
        help="run the MCP server for AI coding agents (stdio; --http for HTTP)",
        description="Serve the version-exact Next.js docs to AI coding agents over the "
        "Model Context Protocol. Agents start it over stdio.",
    )
    add_mcp_arguments(parser)
    parser.set_defaults(handler=_run)

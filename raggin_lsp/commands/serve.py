"""``raggin-lsp serve``: the language server (stdio by default, or TCP)."""

from typing import Any

from raggin_lsp.server.entry import add_serve_arguments, run_serve


def add_serve_command(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the language server (stdio; --tcp for TCP)",
        description="Run the raggin language server. Editors start it over stdio.",
    )
    add_serve_arguments(parser)
    parser.set_defaults(handler=run_serve)

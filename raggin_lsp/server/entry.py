"""``raggin-lsp serve``: the language server over stdio (default) or TCP.

The CLI adds these arguments to its ``serve`` subcommand with
:func:`add_serve_arguments` and runs :func:`run_serve`; :func:`serve` does both.
"""

import argparse
from collections.abc import Sequence

DEFAULT_PORT = 2087


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)"
    )
    parser.add_argument("--tcp", action="store_true", help="listen on a TCP port instead")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on with --tcp (default 127.0.0.1: this machine only)",
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port for --tcp (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--log-level",
        default="INFO",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help="what the client's log (window/logMessage) and --log-file receive",
    )
    parser.add_argument("--log-file", help="also write the server log to this file")


def run_serve(args: argparse.Namespace) -> int:
    from raggin_lsp.server import log
    from raggin_lsp.server.features import create_server

    handler = log.configure(args.log_level, args.log_file)
    server = create_server(handler)
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()
    return 0


def serve(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="raggin-lsp serve", description=__doc__)
    add_serve_arguments(parser)
    return run_serve(parser.parse_args(argv))

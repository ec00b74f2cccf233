"""``raggin-lsp serve``: the language server over stdio (default) or TCP.

The CLI adds these arguments to its ``serve`` subcommand with
:func:`add_serve_arguments` and runs :func:`run_serve`; :func:`serve` does both.
"""

import argparse
import ipaddress
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # imported when serving starts, not with the CLI's parser
    from raggin_lsp.server.diagnostics import Catalogs

DEFAULT_PORT = 2087
DEFAULT_HOST = "127.0.0.1"


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)"
    )
    parser.add_argument("--tcp", action="store_true", help="listen on a TCP port instead")
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to listen on with --tcp (default {DEFAULT_HOST}: this machine only)",
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


def run_serve(args: argparse.Namespace, *, catalogs: "Catalogs | None" = None) -> int:
    """Serve until the client sends ``exit``; ``catalogs`` replaces the API catalogs."""
    from raggin_lsp.server import log
    from raggin_lsp.server.features import create_server

    handler = log.configure(args.log_level, args.log_file)
    server = create_server(handler, catalogs=catalogs)
    if args.tcp:
        warn_if_exposed(args.host)
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()
    return 0


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to any interface
        return False


def warn_if_exposed(host: str, stream: TextIO = sys.stderr) -> bool:
    """Warn, on stderr, when the server will listen beyond this machine; True if it did."""
    if is_loopback(host):
        return False
    print(
        f"raggin-lsp: listening on {host}: the language server protocol has no "
        "authentication, so anyone who can reach this port can read your project's files "
        "through it and use its models. Keep --host on 127.0.0.1 unless the network is yours.",
        file=stream,
    )
    return True


def serve(argv: Sequence[str] | None = None, *, catalogs: "Catalogs | None" = None) -> int:
    parser = argparse.ArgumentParser(prog="raggin-lsp serve", description=__doc__)
    add_serve_arguments(parser)
    return run_serve(parser.parse_args(argv), catalogs=catalogs)

"""The ``raggin-lsp`` command line: the pipeline's stages, one subcommand each.

Each subcommand group registers itself (see :func:`_subcommands`) through an ``_add_*``
function that builds its parser and names its handler; handlers are small functions
taking the parsed arguments and returning the exit code. A :class:`RagginError` is
printed as one line on stderr with exit code 1; usage errors exit with 2.
"""

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from raggin_lsp import package_version
from raggin_lsp.cli_support import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_USAGE,
    PROG,
    Handler,
    ProgressBar,
    note,
    print_json,
)
from raggin_lsp.commands.serve import add_serve_command
from raggin_lsp.errors import RagginError


def _resolve_version(spec: str) -> str:
    """An exact version as given (checked when fetched), or the newest one matching a range."""
    from raggin_lsp.corpus.fetch import is_version_name
    from raggin_lsp.corpus.versions import resolve_range

    spec = spec.strip()
    return spec if is_version_name(spec) else resolve_range(spec)


def _ensure_docs(args: argparse.Namespace) -> tuple[str, Path]:
    """Resolves ``args.version`` and makes sure its docs are in the cache."""
    from raggin_lsp.corpus.fetch import ensure_docs

    version = _resolve_version(args.version)
    from_path = getattr(args, "from_path", None)
    with ProgressBar(f"next@{version}", quiet=args.quiet) as progress:
        root = ensure_docs(
            version,
            workspace=Path.cwd(),
            from_path=from_path,
            progress=progress,
            force=getattr(args, "force", False),
        )
    return version, root


# --- versions ----------------------------------------------------------------------------


def _cmd_versions(args: argparse.Namespace) -> int:
    from raggin_lsp.corpus.fetch import cached_versions
    from raggin_lsp.corpus.versions import (
        load_catalog,
        packaged_snapshot_path,
        refresh_snapshot,
    )

    if args.refresh_snapshot is not None:
        targets = [args.refresh_snapshot, packaged_snapshot_path()]
        unique = list(dict.fromkeys(path.resolve() for path in targets))
        catalog = refresh_snapshot(unique)
        for path in unique:
            note(args, f"Wrote {len(catalog)} releases (latest {catalog.latest}) to {path}")
        return EXIT_OK
    catalog = load_catalog(refresh=args.refresh)
    cached = set(cached_versions())
    if args.json:
        print_json(
            {
                "latest": catalog.latest,
                "origin": catalog.origin,
                "fetched_at": catalog.fetched_at,
                "versions": [
                    {**release.to_dict(), "cached": release.version in cached}
                    for release in reversed(catalog.releases)
                ],
            }
        )
        return EXIT_OK
    origin = {
        "registry": "the npm registry",
        "cache": "the cached registry answer",
        "snapshot": "the offline snapshot",
    }[catalog.origin]
    print(f"Next.js releases: {len(catalog)}, latest {catalog.latest} (from {origin})")
    rows: dict[str, list[str]] = {}
    kinds: dict[str, str] = {}
    for release in reversed(catalog.releases):
        minor = ".".join(release.version.split(".")[:2])
        mark = "*" if release.version in cached else ""
        rows.setdefault(minor, []).append(release.version + mark)
        kinds[minor] = release.source
    for minor, versions in rows.items():
        print(f"{minor:<6} {kinds[minor]:<12} {' '.join(versions)}")
    if cached:
        print("* docs cached locally")
    return EXIT_OK


def _add_versions(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "versions",
        help="list the Next.js releases raggin knows (cached ones marked *)",
        description="List stable Next.js releases from 13.0.0 on and where their docs come from.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--refresh", action="store_true", help="ask the npm registry now")
    parser.add_argument(
        "--refresh-snapshot",
        type=Path,
        metavar="PATH",
        help="read the registry now and write the offline snapshot to PATH "
        "(and the copy shipped in the package)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no status lines")
    parser.set_defaults(handler=_cmd_versions)


# --- docs --------------------------------------------------------------------------------


def _cmd_docs_fetch(args: argparse.Namespace) -> int:
    from raggin_lsp.corpus.fetch import source_info

    version, root = _ensure_docs(args)
    info = source_info(version) or {}
    files = sum(1 for path in (root / "docs").rglob("*") if path.is_file())
    where = info.get("location", "?")
    print(
        f"Next.js {version}: {files} docs files in {root} (from {info.get('kind', '?')}: {where})"
    )
    return EXIT_OK


def _cmd_docs_sections(args: argparse.Namespace) -> int:
    from raggin_lsp.corpus.parse import parse_docs_tree

    version, root = _ensure_docs(args)
    sections = parse_docs_tree(root, version, max_tokens=args.max_tokens)
    if args.json:
        print_json([section.to_dict() for section in sections])
        return EXIT_OK
    current_page = None
    for section in sections:
        if section.source_path != current_page:
            current_page = section.source_path
            print(f"\n{section.url_path}  ({section.source_path})")
        part = f" [part {section.part + 1}]" if section.part else ""
        code = f", {len(section.code)} code" if section.code else ""
        label = section.heading or section.title or "(untitled)"
        print(f"  #{section.anchor or '-'}  {label}{part}  ({len(section.text)} chars{code})")
    pages = len({section.source_path for section in sections})
    snippets = sum(len(section.code) for section in sections)
    print(f"\nNext.js {version}: {pages} pages, {len(sections)} sections, {snippets} code snippets")
    return EXIT_OK


def _add_docs(subparsers: Any) -> None:
    docs = subparsers.add_parser("docs", help="fetch and inspect a version's docs")
    actions = docs.add_subparsers(dest="docs_command", metavar="ACTION", required=True)

    def add_version_action(name: str, help_text: str, handler: Handler) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = actions.add_parser(name, help=help_text)
        parser.add_argument(
            "version", metavar="VERSION", help="e.g. 16.4.6, latest or an npm range like ^16.2"
        )
        parser.add_argument(
            "--from",
            dest="from_path",
            type=Path,
            metavar="PATH",
            help="take the docs from a docs folder, a project folder with node_modules, "
            "an npm tarball or a GitHub tag archive instead of downloading them",
        )
        parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
        parser.set_defaults(handler=handler)
        return parser

    fetch = add_version_action("fetch", "download a version's docs into the cache", _cmd_docs_fetch)
    fetch.add_argument("--force", action="store_true", help="fetch again even when cached")
    sections = add_version_action(
        "sections", "show exactly the sections that get embedded", _cmd_docs_sections
    )
    sections.add_argument("--json", action="store_true", help="print the sections as JSON")
    sections.add_argument(
        "--max-tokens", type=int, default=512, help="split sections longer than this (512)"
    )


# --- entry point -------------------------------------------------------------------------


def _subcommands(command: str | None) -> tuple[Callable[[Any], None], ...]:
    """The subcommand groups to register: all of them, or only ``serve`` when that is the
    command. Editors spawn ``serve`` on every start and wait for its answer to
    ``initialize``; the other groups' modules (question sets, YAML, retrieval stages)
    would only delay it, so they are imported here, when their parsers are built."""
    if command == "serve":
        return (add_serve_command,)
    from raggin_lsp.commands.apis import add_apis_command
    from raggin_lsp.commands.demo import add_demo_command
    from raggin_lsp.commands.diff import add_diff_command
    from raggin_lsp.commands.eval import add_eval_command
    from raggin_lsp.commands.index import add_index_commands
    from raggin_lsp.commands.mcp import add_mcp_command

    return (
        _add_versions,
        _add_docs,
        add_index_commands,
        add_apis_command,
        add_diff_command,
        add_serve_command,
        add_mcp_command,
        add_demo_command,
        add_eval_command,
    )


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line (the global options take no values)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; given the ``command`` about to run, it may leave out
    the other subcommands (see :func:`_subcommands`)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Answers Next.js questions from the docs of the exact version you use.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {package_version()}")
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="log more (repeat for debug)"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in _subcommands(command):
        add(subparsers)
    return parser


def _configure_logging(verbosity: int) -> None:
    level = logging.WARNING if verbosity == 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    logging.basicConfig(
        level=level, format=f"{PROG}: %(levelname)s: %(message)s", stream=sys.stderr
    )


def _server_error_message(error: Exception) -> str | None:
    if "qdrant_client" not in sys.modules:
        return None  # no server was talked to; keeps the CLI from importing it
    from raggin_lsp.store.server import server_error_message

    return server_error_message(error)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(_command_of(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits on --help (0) and on usage errors (2)
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    _configure_logging(args.verbose)
    handler: Handler = args.handler
    try:
        return handler(args)
    except RagginError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # before Exception, which it is one of
        # The reader (e.g. `| head`) went away: stop quietly, as other CLI tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_ERROR
    except Exception as error:
        message = _server_error_message(error)
        if message is None:
            raise
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

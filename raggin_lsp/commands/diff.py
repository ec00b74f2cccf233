"""``raggin-lsp diff V1 V2``: what changed between two versions, per API or overall.

The rows come from the Version History tables of V2's docs (see
:mod:`raggin_lsp.changes`), so V1's docs are never fetched; ``--api`` keeps one API.
"""

import argparse
import sys
from typing import Any

from raggin_lsp.cli_support import EXIT_ERROR, EXIT_OK, Handler, print_json


def _cmd_diff(args: argparse.Namespace) -> int:
    from raggin_lsp.changes import changes_between, diff_json, release_key
    from raggin_lsp.corpus.apis import load_catalog

    since, until = args.since.strip(), args.until.strip()
    if release_key(since) is None or release_key(until) is None:
        print("raggin-lsp diff: give two releases, e.g. 16.2.0 16.4.6", file=sys.stderr)
        return EXIT_ERROR
    catalog = load_catalog(until)
    if args.json:
        print_json(diff_json(catalog, since, until, args.api))
        return EXIT_OK
    changes = changes_between(catalog, since, until, args.api)
    for change in changes:
        print(f"{change.version}  {change.api}  [{change.kind}]  {change.change}")
        print(f"    {change.url}")
    what = f" for {args.api}" if args.api else ""
    print(
        f"\n{len(changes)} changes{what} after {since} up to {until} "
        f"(Version History tables of the Next.js {until} docs)"
    )
    return EXIT_OK


def add_diff_command(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diff", help="what changed between two versions (Version History rows of the newer)"
    )
    parser.add_argument("since", metavar="V1", help="the older release (exclusive), e.g. 16.2.0")
    parser.add_argument("until", metavar="V2", help="the newer release (inclusive), e.g. 16.4.6")
    parser.add_argument("--api", metavar="NAME", help="only this API (e.g. cacheLife, proxy)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    handler: Handler = _cmd_diff
    parser.set_defaults(handler=handler)

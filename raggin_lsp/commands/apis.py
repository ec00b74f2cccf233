"""``raggin-lsp apis VERSION``: the API catalog the docs of a version define.

Prints every API reference page (kind, names, how code refers to it, router, URL,
description, Version History rows) and the deprecations, renames and removals the docs
state; ``--json`` prints the catalog as stored.
"""

import argparse
from typing import Any

from raggin_lsp.cli_support import EXIT_OK, Handler, print_json


def _cmd_apis(args: argparse.Namespace) -> int:
    from raggin_lsp.corpus.apis import load_catalog
    from raggin_lsp.corpus.fetch import is_version_name
    from raggin_lsp.corpus.versions import resolve_range

    spec = args.version.strip()
    version = spec if is_version_name(spec) else resolve_range(spec)
    catalog = load_catalog(version)
    if args.json:
        print_json(catalog.to_json())
        return EXIT_OK
    for api in catalog.apis.values():
        refers = ", ".join(
            f"{s.mode} {s.name}" + (f" from {s.module}" if s.module else "") for s in api.symbols
        )
        print(f"{api.url_path}  [{api.kind}, {api.router}]  {api.name}")
        if refers:
            print(f"    code: {refers}")
        if api.description:
            print(f"    {api.description}")
        for row in api.history:
            print(f"    {row.version}: {row.change}")
    print("\nDeprecated, renamed or removed:")
    for item in catalog.deprecations:
        instead = f" -> {item.replacement.name}" if item.replacement else ""
        since = f" (since {item.since})" if item.since else ""
        print(f"  {item.symbol.mode} {item.symbol.name}: {item.status}{since}{instead}")
    counts = ", ".join(f"{kind} {count}" for kind, count in catalog.counts().items())
    print(
        f"\nNext.js {version}: {len(catalog.apis)} API pages ({counts}), "
        f"{len(catalog.deprecations)} deprecations"
    )
    return EXIT_OK


def add_apis_command(subparsers: Any) -> None:
    parser = subparsers.add_parser("apis", help="list the APIs a version's docs document")
    parser.add_argument("version", metavar="VERSION", help="e.g. 16.4.6, latest or ^16.2")
    parser.add_argument("--json", action="store_true", help="print the catalog as JSON")
    handler: Handler = _cmd_apis
    parser.set_defaults(handler=handler)

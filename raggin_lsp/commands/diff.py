"""``raggin-lsp diff V1 V2``: what changed between two versions, per API or overall.

The rows come from the Version History tables of V2's docs (see
:mod:`raggin_lsp.changes`), so V1's docs are never fetched. When both versions are
indexed, the pages and sections whose content changed follow
(:mod:`raggin_lsp.content_changes`); otherwise a line says what to index. ``--api``
keeps one API's rows and its page (with its twin in the other router).
"""

import argparse
import sys
from typing import TYPE_CHECKING, Any

from raggin_lsp.cli_support import EXIT_ERROR, EXIT_OK, Handler, print_json
from raggin_lsp.commands.index import add_store_arguments, assistant_from

if TYPE_CHECKING:
    from raggin_lsp.content_changes import ContentChanges, NotCompared

_MARKS = {"added": "+", "removed": "-", "changed": "~"}


def _cmd_diff(args: argparse.Namespace) -> int:
    from raggin_lsp.changes import api_pages, changes_between, diff_json, release_key
    from raggin_lsp.corpus.apis import load_catalog

    since, until = args.since.strip(), args.until.strip()
    if release_key(since) is None or release_key(until) is None:
        print("raggin-lsp diff: give two releases, e.g. 16.2.0 16.4.6", file=sys.stderr)
        return EXIT_ERROR
    catalog = load_catalog(until)
    pages = api_pages(catalog, args.api) if args.api else None
    assistant = assistant_from(args)
    try:
        content = assistant.content_changes(since, until, pages)
    finally:
        assistant.close()
    if args.json:
        print_json(diff_json(catalog, since, until, args.api, content.to_json()))
        return EXIT_OK
    changes = changes_between(catalog, since, until, args.api)
    for change in changes:
        print(f"{change.version}  {change.api}  [{change.kind}]  {change.change}")
        print(f"    {change.url}")
    what = f" for {args.api}" if args.api else ""
    print(
        f"\n{len(changes)} changes{what} after {since} up to {until} "
        f"(Version History tables of the Next.js {until} docs)\n"
    )
    print("\n".join(content_lines(content)))
    return EXIT_OK


def content_lines(content: "ContentChanges | NotCompared") -> list[str]:
    """The content comparison as text: one line per page, one per changed section."""
    from raggin_lsp.content_changes import NotCompared

    if isinstance(content, NotCompared):
        return [content.message]
    lines = []
    for page in content.pages:
        lines.append(f"{_MARKS[page.change]} {page.page}  ({page.title})")
        for section in page.sections:
            heading = section.heading or "(before the first heading)"
            lines.append(f"    {_MARKS[section.change]} {heading}")
    lines.append(
        f"\nPages from {content.since} to {content.until} (indexed docs): "
        f"{content.count('added')} added, {content.count('removed')} removed, "
        f"{content.count('changed')} changed, {content.unchanged} unchanged"
    )
    return lines


def add_diff_command(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diff",
        help="what changed between two versions (Version History rows of the newer; "
        "changed pages and sections when both are indexed)",
    )
    parser.add_argument("since", metavar="V1", help="the older release (exclusive), e.g. 16.2.0")
    parser.add_argument("until", metavar="V2", help="the newer release (inclusive), e.g. 16.4.6")
    parser.add_argument(
        "--api", metavar="NAME", help="only this API and its page (e.g. cacheLife, proxy)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_store_arguments(parser)
    handler: Handler = _cmd_diff
    parser.set_defaults(handler=handler)

"""The settings table of docs/protocol.md, generated from ``raggin_lsp.settings.SETTINGS``.

``python -m tools.settings_docs`` (``make docs``) rewrites the table in place;
``--check`` only says whether it is current. tests/unit/test_settings_declaration.py
fails while the file and the declarations disagree.
"""

import argparse
import json
import sys
from pathlib import Path

from raggin_lsp.settings import SETTINGS, Setting

PROTOCOL_DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"
SECTION = "\n## Settings\n"
HEADER = "| key | accepts | default | meaning |\n|---|---|---|---|\n"


def row(setting: Setting) -> str:
    """One setting's row: key, accepted values, default, meaning."""
    default = setting.shown_default
    if default is None:
        shown = setting.shown(setting.default)
        default = "none" if shown is None else f"`{json.dumps(shown)}`"
    return f"| `{setting.key}` | {setting.check.accepts} | {default} | {setting.description} |\n"


def table() -> str:
    return HEADER + "".join(row(setting) for setting in SETTINGS)


def with_table(document: str) -> str:
    """``document`` with the first table of its Settings section replaced by :func:`table`."""
    before, found, section = document.partition(SECTION)
    if not found:
        raise ValueError("no '## Settings' section")
    lines = section.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return before + SECTION + "".join(lines[:start]) + table() + "".join(lines[end:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Regenerate the settings table of docs/protocol.md."
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    args = parser.parse_args(argv)
    current = PROTOCOL_DOC.read_text(encoding="utf-8")
    wanted = with_table(current)
    if wanted == current:
        return 0
    if args.check:
        print(f"{PROTOCOL_DOC}: the settings table is stale; run make docs", file=sys.stderr)
        return 1
    PROTOCOL_DOC.write_text(wanted, encoding="utf-8")
    print(f"rewrote the settings table of {PROTOCOL_DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

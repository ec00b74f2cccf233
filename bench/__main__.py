"""``python -m bench``: one table with every performance figure (``make bench``).

Run from a source checkout with the test extra installed (``make install``).
"""

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from bench import DEFAULT_VERSION, STAGES
from raggin_lsp.cli_support import EXIT_ERROR, EXIT_OK, EXIT_USAGE, note

PROG = "python -m bench"
PROFILES = ("light",)  # bge-m3 is measured by its own rows, on random weights


def _stages(value: str) -> frozenset[str]:
    chosen = frozenset(part.strip() for part in value.split(",") if part.strip())
    unknown = chosen - set(STAGES)
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(
            f"choose among {', '.join(STAGES)} (comma-separated), got {value!r}"
        )
    return chosen


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Measure and print every performance figure as median and p95: "
        "indexing, search, LSP latency, RSS, bge-m3 speed.",
    )
    parser.add_argument("--profile", choices=PROFILES, default="light", help="(light)")
    parser.add_argument(
        "--qdrant-path",
        type=Path,
        help="an index holding --version (default: a bench index, built if missing)",
    )
    parser.add_argument(
        "--version", default=DEFAULT_VERSION, help=f"Next.js version ({DEFAULT_VERSION})"
    )
    parser.add_argument(
        "--repeat", type=int, help="repeated runs per figure (default 5, --quick 2)"
    )
    parser.add_argument("--quick", action="store_true", help="small samples, few runs (CI)")
    parser.add_argument(
        "--no-bge-m3", action="store_true", help="skip the bge-m3 random-weights rows"
    )
    parser.add_argument("--no-lsp", action="store_true", help="skip the language server rows")
    parser.add_argument(
        "--only",
        type=_stages,
        metavar="STAGE[,STAGE]",
        help=f"measure only these stages' rows ({', '.join(STAGES)}); the others are left out",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from bench.report import render_table
    from bench.runner import BenchOptions, run_bench

    args = build_parser().parse_args(argv)
    if args.repeat is not None and args.repeat < 1:
        print(f"{PROG}: --repeat must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    options = BenchOptions(
        profile=args.profile,
        version=args.version,
        qdrant_path=args.qdrant_path,
        repeat=args.repeat or (2 if args.quick else 5),
        quick=args.quick,
        bge_m3=not args.no_bge_m3,
        lsp=not args.no_lsp,
        only=args.only,
    )
    report = run_bench(options, lambda message: note(args, f"bench: {message}"))
    if args.json:
        json.dump(report.to_json(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(render_table(report))
    return EXIT_ERROR if report.failed else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

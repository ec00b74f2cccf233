"""``raggin-lsp eval``: retrieval quality of the index on a question set, per strategy."""

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from raggin_lsp.cli_support import EXIT_OK, note
from raggin_lsp.commands.index import add_store_arguments, assistant_from, latest_indexed
from raggin_lsp.eval.questions import DEFAULT_QUESTIONS_PATH, Question, load_questions
from raggin_lsp.eval.runner import ALL_STRATEGIES, DEFAULT_STRATEGY, Strategy, run_eval

# Results asked for per question: enough for the deepest metric (@10).
EVAL_DEPTH = 10


def cmd_eval(args: argparse.Namespace) -> int:
    from raggin_lsp.eval.report import to_json, to_markdown, write_report

    questions = load_questions(args.questions)
    if args.limit:
        questions = questions[: args.limit]
    strategies = [Strategy.from_name(name) for name in args.strategy] or list(ALL_STRATEGIES)
    assistant = assistant_from(args)
    try:
        version = args.version or latest_indexed(assistant)
        assistant.index_store.require_version(version)
        note(args, f"Evaluating {len(questions)} questions on Next.js {version} ({args.profile})")
        assistant.search("warm up", version, top_k=1)  # model and index loading are not latency

        def search(text: str, question: Question, strategy: Strategy) -> tuple[list[str], float]:
            started = time.perf_counter()
            results = assistant.search(
                text,
                version,
                router=question.router,
                top_k=EVAL_DEPTH,
                fusion=strategy.fusion,
                one_per_page=strategy.group_pages,
            )
            return [r.url_path for r in results], (time.perf_counter() - started) * 1000

        default = DEFAULT_STRATEGY if DEFAULT_STRATEGY in {s.name for s in strategies} else None
        report = run_eval(questions, search, strategies, version=version, default_strategy=default)
    finally:
        assistant.close()
    written = write_report(report, args.out, plot=not args.no_plot)
    if args.json:
        json.dump(to_json(report), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(to_markdown(report))
    note(args, "Wrote " + ", ".join(str(path) for path in written.values()))
    return EXIT_OK


def add_eval_command(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "eval", help="retrieval quality (P@K, R@K, MRR, nDCG, latency) per strategy"
    )
    parser.add_argument(
        "--questions",
        type=Path,
        default=DEFAULT_QUESTIONS_PATH,
        help="a YAML question set (default: corpus/eval/questions.yaml)",
    )
    parser.add_argument("--version", help="indexed version (default: the newest indexed)")
    parser.add_argument(
        "--strategy",
        action="append",
        default=[],
        metavar="NAME",
        help="rrf, dbsf, weighted, sparse or dense, optionally +pages; repeat (default: all)",
    )
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions")
    parser.add_argument(
        "--out", type=Path, default=Path("eval-report"), help="folder for report.md/json/png"
    )
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG plot")
    parser.add_argument("--json", action="store_true", help="print the JSON report")
    add_store_arguments(parser)
    parser.set_defaults(handler=cmd_eval)

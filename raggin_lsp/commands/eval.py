"""``raggin-lsp eval``: retrieval quality of the index on the question sets, per strategy.

Questions come from the packaged sets in ``raggin_lsp/eval/data/`` (clean and noisy) and
are split by a hash of their id into ``tune`` (for choosing defaults and weights) and
``test`` (for reporting). By default no router is given to the search, as for a question
asked outside a project: the search infers it from the question when its stages allow
(``--router given`` passes each question's own router instead). ``--ablation`` turns
each retrieval stage off in turn and prints one table.
"""

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from raggin_lsp.cli_support import EXIT_OK, note
from raggin_lsp.commands.index import (
    add_retrieval_arguments,
    add_store_arguments,
    assistant_from,
    latest_indexed,
)
from raggin_lsp.eval.questions import (
    DEFAULT_QUESTION_PATHS,
    SPLITS,
    Question,
    load_question_sets,
)
from raggin_lsp.eval.runner import ALL_STRATEGIES, DEFAULT_STRATEGY, Strategy, run_eval
from raggin_lsp.retrieve.stages import DEFAULT_STAGES, NO_STAGES, Stages, parse_stage_settings

# Results asked for per question: enough for the deepest metric (@10).
EVAL_DEPTH = 10
ABLATION_KEYS = ("P@1", "Hit@5", "R@5", "MRR@10", "nDCG@10", "p50_ms", "p95_ms", "n")


def ablation_configs(base: Stages = DEFAULT_STAGES) -> list[tuple[str, Stages]]:
    """No stage, the default, then the default with each stage turned off (on if off)."""
    configs = [("no stages", NO_STAGES), ("default", base)]
    for name in Stages.names():
        on = getattr(base, name)
        configs.append((f"{'without' if on else 'with'} {name}", base.with_stage(name, not on)))
    return configs


def cmd_eval(args: argparse.Namespace) -> int:
    from raggin_lsp.eval.report import to_json, to_markdown, write_report

    questions = load_question_sets(args.questions or DEFAULT_QUESTION_PATHS, args.split)
    if args.limit:
        questions = questions[: args.limit]
    strategies = [Strategy.from_name(name) for name in args.strategy] or list(ALL_STRATEGIES)
    stages = parse_stage_settings(args.stages) if args.stages else DEFAULT_STAGES
    assistant = assistant_from(args)
    try:
        version = args.version or latest_indexed(assistant)
        assistant.index_store.require_version(version)
        note(
            args,
            f"Evaluating {len(questions)} questions ({args.split} split) on Next.js {version} "
            f"({args.profile}), router {args.router}",
        )
        assistant.search("warm up", version, top_k=1)  # model and index loading are not latency

        def searcher(chosen: Stages) -> Any:
            def search(
                text: str, question: Question, strategy: Strategy
            ) -> tuple[list[str], float]:
                started = time.perf_counter()
                results = assistant.search(
                    text,
                    version,
                    router=question.router if args.router == "given" else None,
                    top_k=EVAL_DEPTH,
                    fusion=strategy.fusion,
                    one_per_page=strategy.group_pages,
                    stages=chosen,
                )
                return [r.url_path for r in results], (time.perf_counter() - started) * 1000

            return search

        if args.ablation:
            default = Strategy.from_name(DEFAULT_STRATEGY)
            rows: dict[str, Any] = {}
            for label, config in ablation_configs(stages):
                missing = assistant.missing_model(config)
                rows[label] = missing or run_eval(
                    questions, searcher(config), [default], version=version
                )
            table = _ablation_markdown(rows, version, args.split)
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "ablation.md").write_text(table, encoding="utf-8")
            print(table)
            return EXIT_OK

        default_name = (
            DEFAULT_STRATEGY if DEFAULT_STRATEGY in {s.name for s in strategies} else None
        )
        report = run_eval(
            questions, searcher(stages), strategies, version=version, default_strategy=default_name
        )
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


def _ablation_markdown(rows: dict[str, Any], version: str, split: str) -> str:
    lines = [
        f"## Retrieval stages on/off (Next.js {version}, {split} split, {DEFAULT_STRATEGY})",
        "",
        "| stages | " + " | ".join(ABLATION_KEYS) + " |",
        "|---|" + "|".join("---:" for _ in ABLATION_KEYS) + "|",
    ]
    for label, report in rows.items():
        if isinstance(report, str):  # the stage's model is not available here
            lines.append(f"| {label} | not run: {report} |" + " |" * (len(ABLATION_KEYS) - 1))
            continue
        metrics = report.summary
        cells = [
            str(int(metrics[key])) if key == "n" else f"{metrics[key]:.3f}" for key in ABLATION_KEYS
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
        for style, by_strategy in report.per_style.items() if len(report.per_style) > 1 else ():
            metrics = next(iter(by_strategy.values()))
            cells = [
                str(int(metrics[key])) if key == "n" else f"{metrics[key]:.3f}"
                for key in ABLATION_KEYS
            ]
            lines.append(f"| &nbsp;&nbsp;{style} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def add_eval_command(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "eval", help="retrieval quality (P@K, R@K, Hit@K, MRR, nDCG, latency) per strategy"
    )
    parser.add_argument(
        "--questions",
        type=Path,
        action="append",
        default=[],
        help="a YAML question set; repeat (default: the packaged clean and noisy sets)",
    )
    parser.add_argument(
        "--split",
        choices=(*SPLITS, "all"),
        default="test",
        help="tune (choose settings on it), test (report it; the default) or all",
    )
    parser.add_argument(
        "--router",
        choices=("infer", "given"),
        default="infer",
        help="infer: no router given, as outside a project (default); given: the question's",
    )
    parser.add_argument("--version", help="indexed version (default: the newest indexed)")
    parser.add_argument(
        "--strategy",
        action="append",
        default=[],
        metavar="NAME",
        help="rrf, dbsf, weighted, sparse or dense, optionally +pages; repeat (default: all)",
    )
    add_retrieval_arguments(parser)
    parser.add_argument(
        "--ablation", action="store_true", help="one table: each retrieval stage on/off"
    )
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions")
    parser.add_argument(
        "--out", type=Path, default=Path("eval-report"), help="folder for report.md/json/png"
    )
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG plot")
    parser.add_argument("--json", action="store_true", help="print the JSON report")
    add_store_arguments(parser)
    parser.set_defaults(handler=cmd_eval)

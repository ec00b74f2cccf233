"""``raggin-lsp demo``: the main job end to end on the offline defaults.

Fetches the docs of the newest Next.js release from npm, indexes them with the
``light`` profile into the embedded index, and prints three searches with their links.
"""

import argparse
import time
from typing import Any

from raggin_lsp.cli_support import EXIT_OK
from raggin_lsp.commands.index import IndexProgressBar, StopFlag

DEMO_QUESTIONS = (
    ("How do I revalidate a path on demand after a form submit?", "app"),
    ("how to add metadata like the page title for SEO", "app"),
    ("getServerSideProps fetch data on every request", "pages"),
)


def cmd_demo(args: argparse.Namespace) -> int:
    from raggin_lsp.assistant import Assistant, AssistantConfig

    assistant = Assistant(AssistantConfig(profile="light", qdrant_path=args.qdrant_path))
    bar = IndexProgressBar(quiet=args.quiet)
    try:
        version = assistant.catalog().latest
        print(f"Next.js {version} is the newest release; indexing its docs (light profile).")
        with StopFlag().installed() as stop:
            report = assistant.index(version, progress=bar, should_stop=stop)
        bar.close()
        print(
            f"Index ready: {report.sections_total} sections "
            f"({report.embedded} embedded now, {report.reused} already stored) "
            f"in {report.seconds:.1f} s, at {assistant.config.store_settings().location}\n"
        )
        for question, router in DEMO_QUESTIONS:
            started = time.perf_counter()
            results = assistant.search(question, version, router=router, top_k=3, one_per_page=True)
            elapsed = (time.perf_counter() - started) * 1000
            print(f'Q: "{question}"  ({router} router, {elapsed:.0f} ms)')
            for rank, result in enumerate(results, 1):
                print(f"  {rank}. {result.heading}\n     {result.url}")
            print()
    finally:
        bar.close()
        assistant.close()
    print("Next: `raggin-lsp serve` in your editor (see editors/), or `raggin-lsp search`.")
    return EXIT_OK


def add_demo_command(subparsers: Any) -> None:
    from pathlib import Path

    demo = subparsers.add_parser(
        "demo", help="index the newest docs offline (light profile) and run three searches"
    )
    demo.add_argument("--qdrant-path", type=Path, help="embedded index folder")
    demo.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    demo.set_defaults(handler=cmd_demo)

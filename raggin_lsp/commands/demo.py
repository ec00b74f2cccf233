"""``raggin-lsp demo``: the main job end to end on the offline defaults.

Fetches the docs of the newest Next.js release from npm, indexes them with the
``light`` profile into the embedded index, and prints three searches with their links.
The version is searchable lexically seconds after its docs are parsed: the first search
is printed then, while the dense vectors are still being computed.
"""

import argparse
import threading
import time
from typing import TYPE_CHECKING, Any

from raggin_lsp.cli_support import EXIT_OK
from raggin_lsp.commands.index import IndexProgressBar, StopFlag

if TYPE_CHECKING:
    from raggin_lsp.assistant import Assistant

DEMO_QUESTIONS = (
    ("How do I revalidate a path on demand after a form submit?", "app"),
    ("how to add metadata like the page title for SEO", "app"),
    ("getServerSideProps fetch data on every request", "pages"),
)


def cmd_demo(args: argparse.Namespace) -> int:
    from raggin_lsp.assistant import Assistant, AssistantConfig, IndexStage
    from raggin_lsp.store.model import IndexReport

    assistant = Assistant(AssistantConfig(profile="light", qdrant_path=args.qdrant_path))
    bar = IndexProgressBar(quiet=args.quiet)
    searchable = threading.Event()
    outcome: list[IndexReport | BaseException] = []

    def progress(stage: IndexStage) -> None:
        bar(stage)
        if stage.searchable:
            searchable.set()

    try:
        version = assistant.catalog().latest
        print(f"Next.js {version} is the newest release; indexing its docs (light profile).")
        with StopFlag().installed() as stop:

            def index() -> None:
                try:
                    outcome.append(assistant.index(version, progress=progress, should_stop=stop))
                except BaseException as error:  # handed to the main thread below
                    outcome.append(error)
                finally:
                    searchable.set()

            job = threading.Thread(target=index, name="demo-index", daemon=True)
            started = time.perf_counter()
            job.start()
            searchable.wait()
            if not outcome:  # searchable lexically; the dense vectors are on their way
                question, router = DEMO_QUESTIONS[0]
                print(f"\nSearchable after {time.perf_counter() - started:.1f} s, before the")
                print("dense vectors are in; a first search meanwhile:\n")
                _show(assistant, version, question, router)
            job.join()
        bar.close()
        if isinstance(outcome[0], BaseException):
            raise outcome[0]
        report = outcome[0]
        print(
            f"Index ready: {report.sections_total} sections "
            f"({report.embedded} embedded now, {report.reused} already stored) "
            f"in {report.seconds:.1f} s, at {assistant.config.store_settings().location}\n"
        )
        for question, router in DEMO_QUESTIONS:
            _show(assistant, version, question, router)
    finally:
        bar.close()
        assistant.close()
    print("Next: `raggin-lsp serve` in your editor (see editors/), or `raggin-lsp search`.")
    return EXIT_OK


def _show(assistant: "Assistant", version: str, question: str, router: str) -> None:
    started = time.perf_counter()
    results = assistant.search(question, version, router=router, top_k=3, one_per_page=True)
    elapsed = (time.perf_counter() - started) * 1000
    stage = results[0].index_stage if results else "hybrid"
    print(f'Q: "{question}"  ({router} router, {stage}, {elapsed:.0f} ms)')
    for rank, result in enumerate(results, 1):
        print(f"  {rank}. {result.heading}\n     {result.url}")
    print()


def add_demo_command(subparsers: Any) -> None:
    from pathlib import Path

    demo = subparsers.add_parser(
        "demo", help="index the newest docs offline (light profile) and run three searches"
    )
    demo.add_argument("--qdrant-path", type=Path, help="embedded index folder")
    demo.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    demo.set_defaults(handler=cmd_demo)

"""CLI commands over the index: index, remove, stats, export, import and search."""

import argparse
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from raggin_lsp.cli_support import EXIT_OK, ProgressBar, note, print_json
from raggin_lsp.embed.catalog import DEFAULT_PROFILE, PROFILES
from raggin_lsp.retrieve.stages import DEFAULT_RERANKER
from raggin_lsp.retrieve.strategies import DEFAULT_FUSION, STRATEGIES

if TYPE_CHECKING:  # the pipeline imports qdrant and onnxruntime: seconds, paid only when used
    from raggin_lsp.assistant import Assistant, IndexStage
    from raggin_lsp.store.model import IndexProgress


@contextmanager
def disk_full_hint() -> Iterator[None]:
    """A write job that ran out of disk also names the docs download cache, which can go."""
    from raggin_lsp.paths import docs_cache_dir
    from raggin_lsp.store.model import IndexWriteError

    try:
        yield
    except IndexWriteError as error:
        docs = docs_cache_dir()
        if not error.disk_full or not docs.is_dir():
            raise
        size = sum(f.stat().st_size for f in docs.rglob("*") if f.is_file())
        raise IndexWriteError(
            f"{error} The downloaded Next.js docs in {docs} ({size / 2**20:,.0f} MB) can be "
            "deleted too: they are downloaded again when a version is indexed.",
            disk_full=True,
        ) from None


def add_store_arguments(parser: argparse.ArgumentParser) -> None:
    """Options every command that opens the index shares."""
    parser.add_argument(
        "--profile",
        choices=tuple(PROFILES),
        default=DEFAULT_PROFILE,
        help=f"embedding profile ({DEFAULT_PROFILE}; light is offline and small)",
    )
    parser.add_argument(
        "--model-path", type=Path, help="load the model from this folder (air-gapped)"
    )
    parser.add_argument("--qdrant-path", type=Path, help="embedded index folder")
    parser.add_argument("--qdrant-url", help="a Qdrant server or cluster instead")
    parser.add_argument("--qdrant-api-key", help="API key for --qdrant-url")
    parser.add_argument(
        "--shards", type=int, default=1, help="shard_number of new collections on a server (1)"
    )
    parser.add_argument(
        "--replicas",
        type=int,
        default=1,
        help="replication_factor of new collections on a server (1)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress output")


def add_retrieval_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of the commands that search (``search``, ``eval``)."""
    parser.add_argument(
        "--stages",
        default="",
        metavar="SPEC",
        help="turn retrieval stages on/off, e.g. 'hub_demotion=off,-api_routing,rerank=on'",
    )
    parser.add_argument(
        "--reranker",
        default=DEFAULT_RERANKER,
        metavar="NAME-OR-FOLDER",
        help=f"cross-encoder of the rerank stage ({DEFAULT_RERANKER}; downloaded on first use)",
    )


def assistant_from(args: argparse.Namespace) -> "Assistant":
    from raggin_lsp.assistant import Assistant, AssistantConfig

    return Assistant(
        AssistantConfig(
            profile=args.profile,
            model_path=args.model_path,
            qdrant_path=args.qdrant_path,
            qdrant_url=args.qdrant_url,
            qdrant_api_key=args.qdrant_api_key,
            shard_number=args.shards,
            replication_factor=args.replicas,
            reranker_model=getattr(args, "reranker", DEFAULT_RERANKER),
        )
    )


class StopFlag:
    """First Ctrl-C asks the job to stop after the current batch; a second one aborts."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self) -> bool:
        return self.requested

    @contextmanager
    def installed(self) -> Iterator["StopFlag"]:
        def handle(_signum: int, _frame: FrameType | None) -> None:
            if self.requested:
                raise KeyboardInterrupt
            self.requested = True
            print("\nStopping after the current batch (Ctrl-C again to abort)...", file=sys.stderr)

        previous = signal.signal(signal.SIGINT, handle)
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, previous)


class IndexProgressBar:
    """One bar per stage: bytes while downloading, sections (with ETA) while embedding."""

    def __init__(self, *, quiet: bool) -> None:
        self._quiet = quiet
        self._download: ProgressBar | None = None
        self._embed: Any = None
        self._stage = ""
        self._started = time.monotonic()
        self._searchable = False

    def __call__(self, stage: "IndexStage") -> None:
        if self._quiet:
            return
        if stage.searchable and not self._searchable:
            self._searchable = True
            print(
                f"Searchable after {time.monotonic() - self._started:.1f} s "
                "(lexical only until the dense vectors are in)",
                file=sys.stderr,
            )
        if stage.stage != self._stage:
            self._stage = stage.stage
            if stage.stage != "fetch" or stage.total is None:
                print(stage.message, file=sys.stderr)
        if stage.stage == "fetch" and stage.total is not None:
            if self._download is None:
                self._download = ProgressBar(stage.message, quiet=False)
            self._download(stage.done, stage.total)
        elif stage.stage == "embed":
            if self._embed is None:
                from tqdm import tqdm

                self._embed = tqdm(
                    total=stage.total,
                    desc="Dense vectors" if stage.searchable else "Embedding",
                    unit="section",
                    file=sys.stderr,
                )
            self._embed.update(stage.done - self._embed.n)

    def close(self) -> None:
        if self._download is not None:
            self._download.__exit__(None, None, None)
        if self._embed is not None:
            self._embed.close()


def cmd_index(args: argparse.Namespace) -> int:
    from raggin_lsp.share import is_export_source

    if args.from_path is not None and is_export_source(args.from_path):
        return _import_export(args, args.from_path, version=args.version)
    assistant = assistant_from(args)
    bar = IndexProgressBar(quiet=args.quiet)
    try:
        with disk_full_hint(), StopFlag().installed() as stop:
            report = assistant.index(
                args.version,
                workspace=Path.cwd(),
                from_path=Path(args.from_path) if args.from_path is not None else None,
                progress=bar,
                should_stop=stop,
            )
    finally:
        bar.close()
        assistant.close()
    rate = report.embedded / report.seconds if report.seconds > 0 and report.embedded else 0.0
    print(
        f"Indexed Next.js {report.version} ({args.profile}): {report.sections_total} sections, "
        f"{report.embedded} embedded, {report.reused} already stored, "
        f"{report.seconds:.1f} s" + (f" ({rate:.1f} sections/s)" if rate else "")
    )
    if report.texts_total and report.texts_embedded < report.texts_total:
        print(
            f"The model ran on {report.texts_embedded} of the version's {report.texts_total} "
            f"texts ({100 * report.texts_embedded_share:.1f}%); the others (paragraphs, "
            "headings, code) were embedded before."
        )
    return EXIT_OK


def cmd_remove(args: argparse.Namespace) -> int:
    assistant = assistant_from(args)
    try:
        deleted = assistant.remove(args.version)
    finally:
        assistant.close()
    print(f"Removed Next.js {args.version}; {deleted} sections no other version uses were deleted")
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    assistant = assistant_from(args)
    try:
        stats = assistant.index_store.stats()
    finally:
        assistant.close()
    if args.json:
        print_json(
            [
                {
                    "collection": item.collection,
                    "points": item.points,
                    "versions": item.versions,
                    "incomplete": list(item.incomplete),
                    "stages": [{"version": version, "stage": "hybrid"} for version in item.versions]
                    + [{"version": v, "stage": stage} for v, stage in item.stages.items()],
                    "location": item.location,
                }
                for item in stats
            ]
        )
        return EXIT_OK
    for item in stats:
        print(f"{item.collection}  ({item.location})  {item.points} sections stored")
        for version, count in item.versions.items():
            print(f"  {version:<10} {count} sections")
        for version in item.incomplete:
            stage = item.stages.get(version, "incomplete")
            print(f"  {version:<10} {stage} (run `raggin-lsp index {version}` to finish)")
        if not item.versions and not item.incomplete:
            print("  no versions indexed")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    assistant = assistant_from(args)
    try:
        count = assistant.index_store.export_version(args.version, args.file)
    finally:
        assistant.close()
    print(f"Exported {count} sections of Next.js {args.version} to {args.file}")
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    """``raggin-lsp import FILE``: the same as ``index VERSION --from FILE``, version from it."""
    return _import_export(args, args.file, version=None)


def _import_export(args: argparse.Namespace, source: str, *, version: str | None) -> int:
    """Import an export (a path or an http(s)/file:// URL): checked, then stored."""
    from raggin_lsp.share import export_file, is_url

    assistant = assistant_from(args)

    def show(step: "IndexProgress") -> None:
        if not args.quiet:
            print(f"\rImporting {step.done}/{step.total}", end="", file=sys.stderr)

    try:
        with (
            disk_full_hint(),
            ProgressBar("Downloading the index export", quiet=args.quiet) as downloaded,
            export_file(source, progress=downloaded) as file,
            StopFlag().installed() as stop,
        ):
            report = assistant.index_store.import_file(
                file,
                progress=show,
                should_stop=stop,
                version=version,
                name=source if is_url(source) else str(file),
            )
    finally:
        assistant.close()
    note(args, "")
    print(
        f"Imported Next.js {report.version} ({args.profile}) from {source}: "
        f"{report.sections_total} sections ({report.embedded} new, {report.reused} already "
        f"stored), checksum verified, nothing embedded, in {report.seconds:.1f} s"
    )
    return EXIT_OK


def cmd_push(args: argparse.Namespace) -> int:
    from raggin_lsp.store import DocsIndex, StoreSettings

    assistant = assistant_from(args)
    target_settings = StoreSettings(
        url=args.to_url,
        api_key=args.to_api_key,
        shard_number=args.shards,
        replication_factor=args.replicas,
    )

    def show(step: "IndexProgress") -> None:
        if not args.quiet:
            print(f"\rPushing {step.done}/{step.total}", end="", file=sys.stderr)

    try:
        source = assistant.index_store
        with (
            DocsIndex.open(target_settings, source.spec) as target,
            StopFlag().installed() as stop,
        ):
            report = source.push_version(args.version, target, progress=show, should_stop=stop)
    finally:
        assistant.close()
    note(args, "")
    print(
        f"Pushed Next.js {report.version} to {args.to_url}: {report.sections_total} sections "
        f"({report.embedded} new, {report.reused} already there) in {report.seconds:.1f} s, "
        "nothing embedded again"
    )
    return EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    from raggin_lsp.retrieve.stages import DEFAULT_STAGES, parse_stage_settings

    stages = parse_stage_settings(args.stages) if args.stages else DEFAULT_STAGES
    assistant = assistant_from(args)
    try:
        version, router, why = _search_target(args, assistant)
        started = time.perf_counter()
        results = assistant.search(
            args.query,
            version,
            router=router,
            code=args.code,
            top_k=args.top_k,
            fusion=args.fusion,
            one_per_page=args.one_per_page,
            stages=stages,
        )
        elapsed_ms = (time.perf_counter() - started) * 1000
    finally:
        assistant.close()
    if args.json:
        print_json([result.to_json() for result in results])
        return EXIT_OK
    print(f"Next.js {version} docs ({why}), {args.fusion} fusion, {elapsed_ms:.0f} ms:")
    for rank, result in enumerate(results, 1):
        print(f"\n{rank}. {result.heading}  (score {result.score:.3f})")
        print(f"   {result.url}")
        for also in result.also:
            print(f"   also for the other router: {also}")
        if args.explain:
            print("   " + _explain(result.scores))
        excerpt = " ".join(result.text.split())[:220]
        print(f"   {excerpt}")
    if not results:
        print("No matching sections.")
    return EXIT_OK


# The per-stage scores --explain prints, in pipeline order.
_EXPLAINED = (
    ("sparse", "sparse"),
    ("text", "dense"),
    ("code", "code"),
    ("fused", "fused"),
    ("page", "page outline"),
    ("cited", "cited by best sections"),
    ("api", "API routing"),
    ("hub", "hub"),
    ("router", "other router"),
    ("rerank", "cross-encoder"),
    ("final", "final"),
)


def _explain(scores: dict[str, float]) -> str:
    parts = [f"{label} {scores[key]:+.3f}" for key, label in _EXPLAINED if key in scores]
    return "why: " + (", ".join(parts) if parts else "no scores")


def _search_target(args: argparse.Namespace, assistant: "Assistant") -> tuple[str, str | None, str]:
    """Version and router as the editor would choose them: the project in the current
    folder decides, unless given; outside a project the newest indexed version, and the
    router the question implies."""
    from raggin_lsp.project import folder_target

    target = folder_target(
        Path.cwd(),
        version=args.version,
        router=args.router,
        indexed=assistant.indexed_versions(),
        resolve_range=lambda spec: assistant.catalog().resolve(spec),
    )
    if target.version is None:
        return latest_indexed(assistant), args.router, "newest indexed"
    return target.version, target.router, target.describe()


def latest_indexed(assistant: "Assistant") -> str:
    from raggin_lsp.errors import NotIndexedError
    from raggin_lsp.store.schema import version_key

    versions = assistant.indexed_versions()
    if not versions:
        raise NotIndexedError(
            "Nothing is indexed yet for the "
            f"'{assistant.config.profile}' profile: run `raggin-lsp index latest "
            f"--profile {assistant.config.profile}` first."
        )
    return max(versions, key=version_key)


def add_index_commands(subparsers: Any) -> None:
    index = subparsers.add_parser("index", help="embed and store a version's docs")
    index.add_argument("version", metavar="VERSION", help="e.g. 16.4.6, latest or ^16.2")
    index.add_argument(
        "--from",
        dest="from_path",
        metavar="PATH-OR-URL",
        help="a local docs folder or archive, or a file made by `raggin-lsp export` (a path "
        "or an http(s)/file:// URL): imported, checksum and profile checked, not embedded",
    )
    add_store_arguments(index)
    index.set_defaults(handler=cmd_index)

    remove = subparsers.add_parser("remove", help="remove a version from the index")
    remove.add_argument("version", metavar="VERSION")
    add_store_arguments(remove)
    remove.set_defaults(handler=cmd_remove)

    stats = subparsers.add_parser("stats", help="what the index holds")
    stats.add_argument("--json", action="store_true", help="print JSON")
    add_store_arguments(stats)
    stats.set_defaults(handler=cmd_stats)

    export = subparsers.add_parser("export", help="write a version's vectors to a file")
    export.add_argument("version", metavar="VERSION")
    export.add_argument("file", metavar="FILE", type=Path)
    add_store_arguments(export)
    export.set_defaults(handler=cmd_export)

    load = subparsers.add_parser(
        "import", help="load an exported version without embedding (= index VERSION --from FILE)"
    )
    load.add_argument("file", metavar="FILE-OR-URL", help="a path or an http(s)/file:// URL")
    add_store_arguments(load)
    load.set_defaults(handler=cmd_import)

    push = subparsers.add_parser(
        "push", help="copy an indexed version to a Qdrant server, without embedding again"
    )
    push.add_argument("version", metavar="VERSION")
    push.add_argument("--to-url", required=True, help="the Qdrant server or cluster to fill")
    push.add_argument("--to-api-key", help="API key for --to-url")
    add_store_arguments(push)
    push.set_defaults(handler=cmd_push)

    search = subparsers.add_parser("search", help="search the indexed docs")
    search.add_argument("query", metavar="QUESTION")
    search.add_argument(
        "--version", help="docs version (default: the project's here, else the newest indexed)"
    )
    search.add_argument(
        "--router",
        choices=("app", "pages"),
        help="default: the project's here, else the one the question implies",
    )
    search.add_argument("--code", help="a code snippet to match against the docs' code")
    search.add_argument("--top-k", type=int, default=5)
    search.add_argument("--fusion", choices=STRATEGIES, default=DEFAULT_FUSION)
    search.add_argument(
        "--all-sections",
        dest="one_per_page",
        action="store_false",
        help="list every matching section, not only the best one per page",
    )
    search.add_argument("--json", action="store_true", help="print JSON")
    search.add_argument("--explain", action="store_true", help="show each stage's score per result")
    add_retrieval_arguments(search)
    add_store_arguments(search)
    search.set_defaults(handler=cmd_search)

"""What the MCP tools do, written without the MCP SDK: plain async methods over the same
:class:`~raggin_lsp.assistant.Assistant` the language server and the CLI use.

:mod:`raggin_lsp.mcp.server` registers these methods as tools and resources; tests call
them directly. Every blocking step (loading the model, embedding a query, reading Qdrant,
indexing) runs in a worker thread, so the event loop keeps answering the client.

Which docs a call is about follows the editor's rules (:func:`raggin_lsp.project.folder_target`):
the call's own ``version``, the ``nextVersion`` setting, the project that holds
``project_path`` (default: the server's project folder); outside a project, the newest
indexed version, said so in the result. A version that is not indexed is never replaced
by another one: the call fails with what to run.
"""

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from raggin_lsp.errors import NotIndexedError, RagginError, not_indexed_message
from raggin_lsp.index_progress import stage_message, stage_percentage
from raggin_lsp.memory import release_free_memory
from raggin_lsp.project import Target, folder_target
from raggin_lsp.retrieve.pages import url_path_of
from raggin_lsp.settings import Settings

if TYPE_CHECKING:  # the pipeline imports onnxruntime and Qdrant: seconds, paid in a thread
    from raggin_lsp.assistant import Assistant, IndexStage
    from raggin_lsp.corpus.apis import Api, ApiCatalog
    from raggin_lsp.retrieve.model import SearchResult

log = logging.getLogger(__name__)

URI_SCHEME = "raggin"
# What a not-indexed error offers besides the CLI command.
INDEX_HINT = "or call the index_version tool"
ROUTERS = ("app", "pages")
MAX_TOP_K = 50
_PROGRESS_INTERVAL = 0.25  # seconds between progress notifications from an index job

AssistantFactory = Callable[[Settings], "Assistant"]
# progress (0-100), total (100), message: an MCP progress notification.
ProgressSink = Callable[[float, float, str], Coroutine[Any, Any, None]]


def page_uri(version: str, url_path: str) -> str:
    """``raggin://16.2.0/docs/app/...``: the resource address of one indexed page."""
    return f"{URI_SCHEME}://{version}{url_path}"


def parse_page_uri(uri: str) -> tuple[str, str] | None:
    """(version, site path) of a ``raggin://`` page address, else None."""
    prefix = f"{URI_SCHEME}://"
    if not uri.startswith(prefix):
        return None
    version, slash, rest = uri[len(prefix) :].partition("/")
    if not version or not slash:
        return None
    return version, url_path_of(rest)


def _default_assistant(settings: Settings) -> "Assistant":
    from raggin_lsp.assistant import Assistant, AssistantConfig

    return Assistant(AssistantConfig.from_settings(settings))


class DocsTools:
    """The server's state: settings, the project folder and one Assistant, loaded once."""

    def __init__(
        self,
        settings: Settings,
        project_dir: Path,
        *,
        assistant_factory: AssistantFactory = _default_assistant,
        ollama_configured: bool = False,
    ) -> None:
        self.settings = settings
        self.project_dir = project_dir
        self.ollama_configured = ollama_configured
        self._assistant_factory = assistant_factory
        self._assistant: Assistant | None = None
        self._load_lock = asyncio.Lock()
        self._index_lock = asyncio.Lock()

    # -------------------------------------------------------------- the Assistant

    async def assistant(self) -> "Assistant":
        """The loaded Assistant (model and index), loading it in a thread the first time."""
        async with self._load_lock:
            if self._assistant is None:
                self._assistant = await asyncio.to_thread(self._load)
            return self._assistant

    def _load(self) -> "Assistant":
        assistant = self._assistant_factory(self.settings)
        assistant.load()
        assistant.warm_up()
        release_free_memory()  # what loading freed: ~40 MB of resident memory
        return assistant

    async def warm_up(self) -> None:
        """Load now rather than on the first call; a failure is the first call's to report."""
        try:
            await self.assistant()
        except Exception as error:
            log.warning("Loading the docs index failed (the first call will retry): %s", error)

    def close(self) -> None:
        """Close the index (when the server stops)."""
        if self._assistant is not None:
            self._assistant.close()
            self._assistant = None

    # -------------------------------------------------------------- which docs

    def _folder(self, project_path: str | None) -> Path:
        if not project_path:
            return self.project_dir
        folder = Path(project_path).expanduser()
        folder = folder if folder.is_absolute() else self.project_dir / folder
        if not folder.exists():
            raise RagginError(f"project_path {project_path!r} does not exist ({folder}).")
        return folder

    async def target(
        self, version: str | None, router: str | None, project_path: str | None
    ) -> Target:
        """The indexed version and the router a call is about, or a RagginError saying why
        there is none (the version is unknown, not indexed, or the project's is unknown)."""
        if router is not None and router not in ROUTERS:
            raise RagginError(f'router must be "app" or "pages", got {router!r}.')
        assistant = await self.assistant()
        folder = self._folder(project_path)
        return await asyncio.to_thread(self._target, assistant, folder, version, router)

    def _target(
        self, assistant: "Assistant", folder: Path, version: str | None, router: str | None
    ) -> Target:
        indexed = assistant.indexed_versions()
        if version:
            version = assistant.resolve_version(version.strip())  # a range or latest, too
        target = folder_target(
            folder,
            version=version,
            router=router,
            indexed=indexed,
            resolve_range=lambda spec: assistant.catalog().resolve(spec),
            configured_version=self.settings.next_version,
            configured_router=self.settings.router,
            latest=assistant.catalog().latest,
        )
        project = target.project
        if target.version is None or (
            target.reason == "newest indexed" and project is not None and project.problem
        ):
            # A project whose version is unknown must not silently get another version.
            problem = project.problem if project is not None else None
            raise RagginError(
                "No Next.js version is known for this call"
                + (f" ({problem})" if problem else f" (no Next.js project in {folder})")
                + ': pass "version" (e.g. "16.2.0"), or index a version with '
                f"`raggin-lsp index <version>` {INDEX_HINT}."
            )
        if target.version not in indexed:
            assistant.catalog().require(target.version)  # an unknown release names the nearest
            profile = self.settings.profile
            raise NotIndexedError(
                not_indexed_message(
                    target.version,
                    INDEX_HINT,
                    profile=profile if profile != Settings().profile else None,
                )
            )
        return target

    # -------------------------------------------------------------- tools

    async def search_docs(
        self,
        query: str,
        version: str | None = None,
        router: str | None = None,
        top_k: int | None = None,
        project_path: str | None = None,
    ) -> dict[str, Any]:
        if not query.strip():
            raise RagginError("query is empty: say what to look for in the Next.js docs.")
        if top_k is not None and not 1 <= top_k <= MAX_TOP_K:
            raise RagginError(f"top_k must be from 1 to {MAX_TOP_K}, got {top_k}.")
        target = await self.target(version, router, project_path)
        assert target.version is not None
        assistant = await self.assistant()
        results = await asyncio.to_thread(
            assistant.search,
            query,
            target.version,
            router=target.router,
            top_k=top_k or self.settings.top_k,
            fusion=self.settings.fusion,
        )
        return {
            "version": target.version,
            "versionReason": target.describe(),
            "router": target.router,
            "profile": self.settings.profile,
            "indexStage": await asyncio.to_thread(assistant.index_stage, target.version),
            "results": [_result_json(result) for result in results],
        }

    async def get_page(self, url_or_path: str, version: str | None = None) -> dict[str, Any]:
        if not url_or_path.strip():
            raise RagginError("url_or_path is empty: pass a docs URL or path such as /docs/app.")
        from_uri = parse_page_uri(url_or_path.strip())
        if from_uri is not None:
            uri_version, url_path = from_uri
            version = version or uri_version
        else:
            url_path = url_path_of(url_or_path)
        target = await self.target(version, None, None)
        assert target.version is not None
        assistant = await self.assistant()
        page = await asyncio.to_thread(assistant.page, target.version, url_path)
        return {
            "version": page.version,
            "versionReason": target.describe(),
            "url": _site_url(assistant, page.url_path, page.version),
            "resource": page_uri(page.version, page.url_path),
            "title": page.title,
            "router": page.router,
            "sections": page.headings,
            "markdown": page.markdown(),
        }

    async def read_page(self, version: str, path: str) -> str:
        """A page resource's text: the page's Markdown as indexed."""
        assistant = await self.assistant()
        indexed = await asyncio.to_thread(assistant.indexed_versions)
        if version not in indexed:
            raise NotIndexedError(not_indexed_message(version, INDEX_HINT))
        page = await asyncio.to_thread(assistant.page, version, url_path_of(path))
        return page.markdown()

    async def page_listing(self) -> list[tuple[str, str, str]]:
        """(URI, title, description) of every page of every indexed version."""
        assistant = await self.assistant()

        def listing() -> list[tuple[str, str, str]]:
            found = []
            for version in assistant.indexed_versions():
                for page in assistant.pages(version).values():
                    found.append((page_uri(version, page.url_path), page.title, page.description))
            return found

        return await asyncio.to_thread(listing)

    async def list_versions(self, project_path: str | None = None) -> dict[str, Any]:
        assistant = await self.assistant()
        folder = self._folder(project_path)

        def versions() -> dict[str, Any]:
            catalog = assistant.catalog()
            target = folder_target(
                folder,
                version=None,
                router=None,
                indexed=assistant.indexed_versions(),
                resolve_range=catalog.resolve,
            )
            project = target.project
            return {
                "indexed": assistant.indexed_versions(),
                # Every searchable version and how: "hybrid", "lexical only, dense 40%"
                "stages": [
                    {"version": version, "stage": stage}
                    for version, stage in assistant.index_stages().items()
                ],
                "project": project.to_json() if project is not None else None,
                "projectVersion": project.version if project is not None else None,
                "default": target.version,
                "defaultReason": target.describe(),
                "latest": catalog.latest,
                "available": list(reversed(catalog.versions)),
                "profile": self.settings.profile,
            }

        return await asyncio.to_thread(versions)

    async def index_version(
        self, version: str, progress: ProgressSink | None = None
    ) -> dict[str, Any]:
        """Fetch, parse and embed ``version`` (minutes), reporting progress 0-100."""
        assistant = await self.assistant()
        exact = await asyncio.to_thread(assistant.resolve_version, version.strip())
        async with self._index_lock:  # one index job at a time: each one fills the CPU
            report = await self._index(assistant, exact, progress)
        indexed = await asyncio.to_thread(assistant.indexed_versions)
        return {
            "version": exact,
            "indexed": indexed,
            "sections": report.sections_total,
            "embedded": report.embedded,
            "reused": report.reused,
            "texts_embedded": report.texts_embedded,
            "texts_total": report.texts_total,
            "seconds": round(report.seconds, 1),
        }

    async def _index(
        self, assistant: "Assistant", version: str, progress: ProgressSink | None
    ) -> Any:
        loop = asyncio.get_running_loop()
        stop = threading.Event()
        last = [0.0]
        sent: set[asyncio.Future[None]] = set()

        def on_stage(stage: "IndexStage") -> None:  # called in the worker thread
            now = time.monotonic()
            percentage = stage_percentage(stage)
            if progress is None or (now - last[0] < _PROGRESS_INTERVAL and percentage < 100):
                return
            last[0] = now
            future = asyncio.run_coroutine_threadsafe(
                progress(percentage, 100, stage_message(stage)), loop
            )
            sent.add(asyncio.wrap_future(future, loop=loop))

        job = asyncio.ensure_future(
            asyncio.to_thread(
                assistant.index,
                version,
                workspace=self.project_dir,
                progress=on_stage,
                should_stop=stop.is_set,
            )
        )
        try:
            report = await asyncio.shield(job)
        except asyncio.CancelledError:
            stop.set()  # the pipeline stops between batches; what it stored is kept
            await asyncio.wait([job])
            raise
        if sent:
            await asyncio.wait(sent)
        if progress is not None:
            await progress(100, 100, f"Next.js {version} docs indexed")
        return report

    async def api_info(
        self, name: str, version: str | None = None, project_path: str | None = None
    ) -> dict[str, Any]:
        """The API reference pages documenting ``name`` in the version's API catalog."""
        from raggin_lsp.changes import matches

        wanted = _api_name(name)
        if not wanted:
            raise RagginError("name is empty: give an API such as revalidatePath or proxy.ts.")
        chosen, reason = await self.catalog_version(version, project_path)
        assistant = await self.assistant()
        catalog = await asyncio.to_thread(assistant.api_catalog, chosen)
        found = [api for api in catalog.apis.values() if matches(api, wanted)]
        if not found:
            raise RagginError(
                f"No API named {name!r} in the API reference of the Next.js {chosen} docs; "
                "search_docs finds where else the docs mention it."
            )
        return {
            "version": chosen,
            "versionReason": reason,
            "apis": [_api_json(api, catalog) for api in found],
        }

    async def diff(
        self,
        since: str,
        version: str | None = None,
        api: str | None = None,
        project_path: str | None = None,
    ) -> dict[str, Any]:
        """The Version History rows after ``since`` up to the version (the newer one),
        and the pages whose content changed when both versions are indexed."""
        from raggin_lsp.changes import api_pages, diff_json, release_key

        if release_key(since) is None:
            raise RagginError(f"since must be a release such as 16.2.0, got {since!r}.")
        chosen, reason = await self.catalog_version(version, project_path)
        assistant = await self.assistant()
        catalog = await asyncio.to_thread(assistant.api_catalog, chosen)
        wanted = _api_name(api) if api else None
        pages = api_pages(catalog, wanted) if wanted else None
        content = await asyncio.to_thread(assistant.content_changes, since, chosen, pages)
        answer = diff_json(catalog, since, chosen, wanted, content.to_json())
        return {**answer, "versionReason": reason}

    async def catalog_version(
        self, version: str | None, project_path: str | None
    ) -> tuple[str, str]:
        """The version an API question is about, and why: chosen as for a search, but it
        need not be indexed (the API catalog is read from the version's docs)."""
        assistant = await self.assistant()
        folder = self._folder(project_path)

        def choose() -> tuple[str, str]:
            if version:
                return assistant.resolve_version(version.strip()), "requested"
            target = folder_target(
                folder,
                version=None,
                router=None,
                indexed=assistant.indexed_versions(),
                resolve_range=lambda spec: assistant.catalog().resolve(spec),
                configured_version=self.settings.next_version,
                configured_router=self.settings.router,
                latest=assistant.catalog().latest,
            )
            if target.version is None:
                raise RagginError(
                    f"No Next.js version is known for this call (no project in {folder}): "
                    'pass "version", e.g. "16.2.0".'
                )
            return target.version, target.reason

        return await asyncio.to_thread(choose)

    async def ask(
        self,
        question: str,
        version: str | None = None,
        router: str | None = None,
        project_path: str | None = None,
    ) -> dict[str, Any]:
        if not question.strip():
            raise RagginError("question is empty.")
        target = await self.target(version, router, project_path)
        assert target.version is not None
        assistant = await self.assistant()
        answer = await assistant.ask(question, target.version, router=target.router)
        return {
            "answer": answer.text,
            "version": answer.version,
            "versionReason": target.describe(),
            "model": answer.model,
            "usedLlm": answer.used_llm,
            "profile": self.settings.profile,
            "indexStage": await asyncio.to_thread(assistant.index_stage, target.version),
            "citations": [
                {"n": c.n, "url": c.url, "title": c.title, "version": c.version}
                for c in answer.citations
            ],
        }


# How code names a file convention or a call; the catalog knows the bare name.
_NAME_SUFFIXES = ("()", ".tsx", ".ts", ".jsx", ".js", ".mjs", ".cjs")


def _api_name(name: str) -> str:
    """``useRouter()`` -> ``useRouter``, ``proxy.ts`` -> ``proxy``, quotes dropped."""
    text = name.strip().strip("`'\"")
    for suffix in _NAME_SUFFIXES:
        text = text.removesuffix(suffix)
    return text


def _api_json(api: "Api", catalog: "ApiCatalog") -> dict[str, Any]:
    """One catalog entry for an agent: where it is documented, how code names it, its
    history, and what the docs say is deprecated on its page."""
    from raggin_lsp.corpus.urls import site_url

    deprecations = [
        d for d in catalog.deprecations if d.page == api.url_path or d.symbol in api.symbols
    ]
    return {
        "name": api.name,
        "title": api.title,
        "kind": api.kind,
        "router": api.router,
        "url": site_url(api.url_path, catalog.version),
        "resource": page_uri(catalog.version, api.url_path),
        "description": api.description,
        "importPath": api.import_path,
        "filePattern": api.file_pattern,
        "usedAs": [
            {"mode": s.mode, "name": s.name, "module": s.module, "folder": s.folder}
            for s in api.symbols
        ],
        "history": [{"version": row.version, "change": row.change} for row in api.history],
        "deprecations": [
            {
                "name": d.symbol.name,
                "status": d.status,
                "since": d.since,
                "replacement": d.replacement.name if d.replacement else None,
                "evidence": d.evidence,
            }
            for d in deprecations
        ],
        "twin": api.twin,
    }


def _result_json(result: "SearchResult") -> dict[str, Any]:
    """A search result for an agent: where it is, how it scored, its Markdown."""
    return {
        "url": result.url,
        "resource": page_uri(result.version, result.url_path),
        "version": result.version,
        "title": result.title,
        "headingPath": list(result.heading_path),
        "router": result.router,
        "score": round(result.score, 4),
        "text": result.text,
        "also": list(result.also),
    }


def _site_url(assistant: "Assistant", url_path: str, version: str) -> str:
    from raggin_lsp.corpus.urls import site_url

    return site_url(url_path, version, assistant.index_store.latest_major())

"""The Assistant's life in the server: loaded in the background, indexed on demand.

Loading the embedding model and opening the index take seconds, so they happen in a
thread after ``initialized``, under a ``Loading Next.js docs index`` progress. Requests
that need the Assistant await the load instead of failing. Index jobs are shared per
version: a second request for the same version waits for the running job, and the job
stops (between batches) when the last request waiting for it is cancelled.
"""

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from raggin_lsp.errors import NotIndexedError, RagginError
from raggin_lsp.errors import not_indexed_message as _not_indexed_message
from raggin_lsp.index_progress import stage_message, stage_percentage
from raggin_lsp.server.progress import WorkDone

if TYPE_CHECKING:
    from raggin_lsp.assistant import Assistant, AssistantConfig, IndexStage
    from raggin_lsp.corpus.versions import Catalog
    from raggin_lsp.server.server import RagginServer

log = logging.getLogger(__name__)

State = Literal["idle", "loading", "ready", "failed"]
LOAD_TITLE = "Loading Next.js docs index"
_THREAD_REPORT_INTERVAL = 0.1  # seconds between progress reports sent from a worker thread


def not_indexed_message(version: str) -> str:
    return _not_indexed_message(
        version,
        'or the raggin.index command ("Raggin: Index Next.js docs"), '
        "or set raggin.autoIndex to true",
    )


@dataclass
class _IndexJob:
    task: "asyncio.Task[Any]"
    stop: threading.Event
    waiters: int = 0


class Loader:
    def __init__(self, server: "RagginServer") -> None:
        self._server = server
        self.state: State = "idle"
        self.error: str | None = None
        self.indexed: list[str] = []  # refreshed after load, index and remove
        self.catalog: Catalog | None = None
        self.config: AssistantConfig | None = None
        self._assistant: Assistant | None = None
        self._ready: asyncio.Future[Assistant] | None = None
        self._jobs: dict[str, _IndexJob] = {}

    # -- loading --------------------------------------------------------------

    def start(self) -> None:
        """Begin loading in the background (again, if the last attempt failed)."""
        if self.state in ("loading", "ready"):
            return
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self.state = "loading"
        self.error = None
        self._server.jobs.spawn(self._load(self._ready), name="load-index")

    async def assistant(self) -> "Assistant":
        """The loaded Assistant, waiting for the load if it is under way."""
        if self.state in ("idle", "failed"):
            self.start()
        assert self._ready is not None
        return await asyncio.shield(self._ready)

    def ready_assistant(self) -> "Assistant | None":
        """The Assistant if it is loaded now (for features that must not wait)."""
        return self._assistant if self.state == "ready" else None

    async def reconfigure(self) -> None:
        """Reload when a setting the Assistant was built with changed."""
        config = self._server.settings.assistant_config()
        if self.config is None or config == self.config or self.state == "idle":
            return
        if self._ready is not None and self.state == "loading":
            await asyncio.wait([self._ready])
        for job in list(self._jobs.values()):
            job.task.cancel("the settings changed")
        old, self._assistant = self._assistant, None
        self.state = "idle"
        if old is not None:
            close = getattr(old, "close", None)
            if callable(close):
                await asyncio.to_thread(close)
        log.info("Settings changed: reloading the docs index")
        self.start()

    async def _load(self, ready: "asyncio.Future[Assistant]") -> None:
        loop = asyncio.get_running_loop()
        try:
            async with WorkDone(self._server, LOAD_TITLE, message="Starting") as work:
                report = _thread_reporter(loop, work.report)
                self.config = self._server.settings.assistant_config()
                assistant = await asyncio.to_thread(self._open, self.config, report)
                self.indexed = await asyncio.to_thread(assistant.indexed_versions)
                work.end_message = (
                    f"Ready: Next.js {', '.join(self.indexed)} indexed"
                    if self.indexed
                    else "Ready: no Next.js docs indexed yet"
                )
        except asyncio.CancelledError:
            self.state = "idle"
            ready.cancel()
            raise
        except RagginError as error:
            self._failed(ready, error)
            log.warning("%s", error)
            return
        except Exception as error:
            self._failed(ready, RagginError(f"Loading the docs index failed: {error}"))
            log.exception("Loading the docs index failed")
            return
        self._assistant = assistant
        self.state = "ready"
        ready.set_result(assistant)

    def _failed(self, ready: "asyncio.Future[Assistant]", error: RagginError) -> None:
        self.state = "failed"
        self.error = str(error)
        if not ready.done():
            ready.set_exception(error)
            ready.exception()  # marks it retrieved: only the waiting requests need it

    def _open(self, config: "AssistantConfig", report: Callable[[str], None]) -> "Assistant":
        from raggin_lsp.assistant import Assistant

        report("Reading the Next.js release list")
        self.catalog = _load_catalog()
        assistant = Assistant(config)
        assistant.load(progress=report)
        assistant.warm_up(progress=report)
        return assistant

    def resolve_range(self, spec: str) -> str | None:
        """The newest release matching an npm range, from the catalog once it is loaded."""
        if self.catalog is None:
            return None
        return self.catalog.resolve(spec)

    @property
    def latest(self) -> str | None:
        return self.catalog.latest if self.catalog is not None else None

    # -- indexing -------------------------------------------------------------

    async def ensure_indexed(self, version: str) -> None:
        """Return once ``version`` is indexed: index it when autoIndex allows, else fail."""
        await self.assistant()
        if version in self.indexed:
            return
        if self.catalog is not None:
            self.catalog.require(version)  # an unknown release is named, with the nearest ones
        if not self._server.settings.auto_index:
            raise NotIndexedError(not_indexed_message(version))
        log.info("Next.js %s is not indexed yet: indexing it first (autoIndex)", version)
        await self.index(version)

    async def index(self, version: str, *, token: Any = None) -> Any:
        """Index ``version`` (or join the job already indexing it)."""
        await self.assistant()
        job = self._jobs.get(version)
        if job is None:
            stop = threading.Event()
            task = self._server.jobs.spawn(self._index(version, stop, token), f"index-{version}")
            job = self._jobs[version] = _IndexJob(task, stop)
        job.waiters += 1
        try:
            return await asyncio.shield(job.task)
        except asyncio.CancelledError:
            if not job.task.done() and job.waiters == 1:
                job.task.cancel("the last request waiting for this index job was cancelled")
            raise
        finally:
            job.waiters -= 1

    def start_index(self, version: str) -> None:
        """Index in the background (nobody waits; the progress can still cancel it)."""
        if version in self._jobs or version in self.indexed:
            return
        self._server.jobs.spawn(self._index_quietly(version), f"auto-index-{version}")

    async def _index_quietly(self, version: str) -> None:
        try:
            await self.index(version)
        except RagginError as error:
            self._server.tell(str(error))

    async def _index(self, version: str, stop: threading.Event, token: Any) -> Any:
        assistant = await self.assistant()
        loop = asyncio.get_running_loop()
        title = f"Indexing Next.js {version} docs"
        try:
            async with WorkDone(
                self._server, title, token=token, cancellable=True, percentage=True
            ) as work:

                def on_stage(stage: "IndexStage") -> None:
                    reporter(stage_message(stage), stage_percentage(stage))

                reporter = _thread_reporter_with_percentage(loop, work.report)
                workspace = self._server.workspace_root()
                run = loop.run_in_executor(
                    None,
                    lambda: assistant.index(
                        version,
                        workspace=workspace,
                        progress=on_stage,
                        should_stop=stop.is_set,
                    ),
                )
                try:
                    result = await asyncio.shield(run)
                except asyncio.CancelledError:
                    stop.set()  # checked by the pipeline between batches
                    work.end_message = "Cancelled"
                    try:
                        await run
                    except Exception as error:  # the stopped job's own complaint
                        log.info("Index job for %s stopped: %s", version, error)
                    raise
                self.indexed = await asyncio.to_thread(assistant.indexed_versions)
                work.end_message = f"Next.js {version} docs indexed"
        except BaseException:
            self.indexed = await asyncio.to_thread(assistant.indexed_versions)
            raise
        finally:
            self._jobs.pop(version, None)
        return result

    async def remove(self, version: str) -> None:
        assistant = await self.assistant()
        job = self._jobs.get(version)
        if job is not None:
            job.task.cancel("the version is being removed")
            await asyncio.wait([job.task])
        await asyncio.to_thread(assistant.remove, version)
        self.indexed = await asyncio.to_thread(assistant.indexed_versions)

    def status(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "error": self.error,
            "indexedVersions": list(self.indexed),
            "indexing": sorted(self._jobs),
            "latest": self.latest,
        }


def _load_catalog() -> "Catalog | None":
    from raggin_lsp.corpus.versions import load_catalog

    try:
        return load_catalog()
    except RagginError as error:
        log.warning("No Next.js release list: %s (version ranges cannot be resolved)", error)
        return None


def _thread_reporter(
    loop: asyncio.AbstractEventLoop, report: Callable[..., None]
) -> Callable[[str], None]:
    """A progress callback for a worker thread: hands messages to the event loop."""

    def send(message: str) -> None:
        loop.call_soon_threadsafe(report, message)

    return send


def _thread_reporter_with_percentage(
    loop: asyncio.AbstractEventLoop, report: Callable[..., None]
) -> Callable[[str, int], None]:
    last = [0.0]

    def send(message: str, percentage: int) -> None:
        now = time.monotonic()
        if now - last[0] < _THREAD_REPORT_INTERVAL and percentage < 100:
            return
        last[0] = now
        loop.call_soon_threadsafe(report, message, percentage)

    return send

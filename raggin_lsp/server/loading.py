"""The Assistant's life in the server: loaded in the background, indexed on demand.

Opening the index and loading the embedding model take seconds, so they happen in a
thread after ``initialized``, under a ``Loading Next.js docs index`` progress. The index
opens first and needs no model: versions, status, removing and the API catalogs wait
only for it. Search, ask and indexing await the model; a failed model load (say, no
network for ``bge-m3``) is reported once and remembered, so those requests then fail at
once with what to do, until the user retries (``raggin.retryModel``) or the backoff of
:mod:`.model_state` passes. Index jobs are shared per
version: a second request for the same version waits for the running job, and the job
stops (between batches) when the last request waiting for it is cancelled.
"""

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from raggin_lsp.errors import ModelError, NotIndexedError, RagginError
from raggin_lsp.errors import not_indexed_message as _not_indexed_message
from raggin_lsp.index_progress import stage_message, stage_percentage
from raggin_lsp.memory import release_free_memory
from raggin_lsp.server import context_vectors
from raggin_lsp.server.model_state import MODEL_RETRY_S, ModelState, ModelUnavailable
from raggin_lsp.server.progress import WorkDone

if TYPE_CHECKING:
    from raggin_lsp.assistant import Assistant, AssistantConfig, IndexStage
    from raggin_lsp.corpus.versions import Catalog
    from raggin_lsp.server.server import RagginServer
    from raggin_lsp.settings import Settings

log = logging.getLogger(__name__)

State = Literal["idle", "loading", "ready", "failed"]
LOAD_TITLE = "Loading Next.js docs index"
MODEL_TITLE = "Loading the embedding model"
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
    searchable: "asyncio.Future[None]"  # done once searches can use the version
    waiters: int = 0


class Loader:
    """The Assistant in two steps: the index opens first (catalog, store: no model), then
    the embedding model loads. Only search, ask and indexing wait for the model; a failed
    model load is remembered (:class:`ModelState`) instead of retried on every request."""

    def __init__(
        self,
        server: "RagginServer",
        *,
        clock: Callable[[], float] = time.monotonic,
        retry_after: float = MODEL_RETRY_S,
        profile: str | None = None,
    ) -> None:
        self._server = server
        # A fixed profile (the light fallback of :mod:`.upgrade`) instead of the setting's;
        # its model folder is its own, so ``raggin.modelPath`` does not apply to it.
        self.fixed_profile = profile
        self.title = LOAD_TITLE if profile is None else f"Loading the {profile} docs index"
        self.state: State = "idle"  # of the index (opened without the model)
        self.error: str | None = None
        self.indexed: list[str] = []  # refreshed after load, index and remove
        # Versions searchable before they are complete, and how: "lexical only, dense 40%".
        self.stages: dict[str, str] = {}
        self.catalog: Catalog | None = None
        self.config: AssistantConfig | None = None
        self._clock = clock
        self._retry_after = retry_after
        self.model = ModelState(self.profile, clock=clock, retry_after=retry_after)
        self._assistant: Assistant | None = None
        self._ready: asyncio.Future[Assistant] | None = None
        self._model_ready: asyncio.Future[None] | None = None
        self._load_task: asyncio.Task[None] | None = None
        self._jobs: dict[str, _IndexJob] = {}

    @property
    def profile(self) -> str:
        """The embedding profile this loader's index and model belong to."""
        return self.fixed_profile or self._server.settings.profile

    def _config(self) -> "AssistantConfig":
        config = _assistant_config(self._server.settings)
        if self.fixed_profile is None:
            return config
        return replace(config, profile=self.fixed_profile, model_path=None)

    # -- loading --------------------------------------------------------------

    def start(self) -> None:
        """Begin loading in the background (again, if the last attempt failed)."""
        if self.state in ("loading", "ready"):
            return
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self.state = "loading"
        self.error = None
        self._load_task = self._server.jobs.spawn(self._load(self._ready), name="load-index")

    async def opened(self) -> "Assistant":
        """The Assistant with its index open, without waiting for the embedding model."""
        if self.state in ("idle", "failed"):
            self.start()
        assert self._ready is not None
        return await asyncio.shield(self._ready)

    async def assistant(self) -> "Assistant":
        """The Assistant with its embedding model loaded (search, ask and indexing).

        Waits for a load under way; after a failed one, raises the remembered failure at
        once (a :class:`ModelUnavailable` saying what to do) until the backoff has passed.
        """
        assistant = await self.opened()
        if self.model.phase == "failed" and not self.model.may_start():
            raise self.model.unavailable()
        if self.model.may_start():
            self._start_model(assistant, requested=False)
        assert self._model_ready is not None
        await asyncio.shield(self._model_ready)
        return assistant

    async def retry_model(self) -> dict[str, Any]:
        """Load the model now even after a failure (the user asked); its state after."""
        assistant = await self.opened()
        if self.model.may_start(requested=True):
            self._start_model(assistant, requested=True)
        if self._model_ready is not None:
            await asyncio.wait([self._model_ready])
        return self.model.to_json()

    def ready_assistant(self) -> "Assistant | None":
        """The Assistant if its index is open now (for features that must not wait)."""
        return self._assistant if self.state == "ready" else None

    async def reconfigure(self) -> None:
        """Reload when a setting the Assistant was built with changed."""
        if self.config is None or self.state == "idle":
            return
        if self._config() == self.config:
            return
        if self._load_task is not None and not self._load_task.done():
            await asyncio.wait([self._load_task])
        for job in list(self._jobs.values()):
            job.task.cancel("the settings changed")
        old, self._assistant = self._assistant, None
        self.state = "idle"
        self.model = ModelState(self.profile, clock=self._clock, retry_after=self._retry_after)
        self._model_ready = None
        if old is not None:
            close = getattr(old, "close", None)
            if callable(close):
                await asyncio.to_thread(close)
        log.info("Settings changed: reloading the docs index")
        self.start()

    async def _load(self, ready: "asyncio.Future[Assistant]") -> None:
        loop = asyncio.get_running_loop()
        try:
            async with WorkDone(self._server, self.title, message="Starting") as work:
                report = _thread_reporter(loop, work.report)
                self.config = self._config()
                self.model.profile = self.config.profile
                assistant = await asyncio.to_thread(self._open, self.config, report)
                await self._refresh(assistant)
                self._assistant = assistant
                self.state = "ready"
                ready.set_result(assistant)
                if self.fixed_profile is not None:  # the fallback's model loads when asked
                    work.end_message = self._ready_message()
                    return
                if self.model.may_start():
                    self._start_model(assistant, requested=False, report=report)
                assert self._model_ready is not None
                await asyncio.wait([self._model_ready])
                work.end_message = self._ready_message()
        except asyncio.CancelledError:
            if not ready.done():
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

    async def close(self) -> None:
        """Stop loading and the index jobs, and close the index: nothing asks this loader
        anything again (the light fallback once the configured profile is light)."""
        if self._load_task is not None and not self._load_task.done():
            self._load_task.cancel("the loader is closed")
        for job in list(self._jobs.values()):
            job.task.cancel("the loader is closed")
        old, self._assistant = self._assistant, None
        self.state = "idle"
        if old is not None:
            await asyncio.to_thread(old.close)

    def _ready_message(self) -> str:
        indexed = (
            f"Next.js {', '.join(self.indexed)} indexed"
            if self.indexed
            else "no Next.js docs indexed yet"
        )
        if self.model.phase == "failed":
            return f"Index open ({indexed}); the embedding model is not available"
        return f"Ready: {indexed}"

    def _failed(self, ready: "asyncio.Future[Assistant]", error: RagginError) -> None:
        if ready.done():  # the index opened: only the model failed, and said so
            return
        self.state = "failed"
        self.error = str(error)
        ready.set_exception(error)
        ready.exception()  # marks it retrieved: only the waiting requests need it

    def _open(self, config: "AssistantConfig", report: Callable[[str], None]) -> "Assistant":
        from raggin_lsp.assistant import Assistant

        report("Reading the Next.js release list")
        self.catalog = _load_catalog()
        assistant = Assistant(config)
        report("Opening the docs index")
        _ = assistant.indexed_versions()  # opens the store: it needs the profile, no model
        return assistant

    # -- the embedding model --------------------------------------------------

    def _start_model(
        self,
        assistant: "Assistant",
        *,
        requested: bool,
        report: Callable[[str], None] | None = None,
    ) -> None:
        """Begin loading the model in a thread (synchronously marks it ``loading``)."""
        self.model.start()
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._model_ready = done
        self._server.jobs.spawn(
            self._load_model(assistant, done, requested=requested, report=report),
            name="load-model",
        )

    async def _load_model(
        self,
        assistant: "Assistant",
        done: "asyncio.Future[None]",
        *,
        requested: bool,
        report: Callable[[str], None] | None,
    ) -> None:
        state = self.model
        try:
            if report is not None:
                await asyncio.to_thread(self._load_model_in_thread, assistant, report)
            else:
                async with WorkDone(self._server, MODEL_TITLE, message="Starting") as work:
                    loop = asyncio.get_running_loop()
                    thread_report = _thread_reporter(loop, work.report)
                    await asyncio.to_thread(self._load_model_in_thread, assistant, thread_report)
        except asyncio.CancelledError:
            state.stop()
            done.cancel()
            raise
        except Exception as error:
            if not isinstance(error, RagginError):
                log.exception("Loading the embedding model failed")
                error = ModelError(f"Loading the embedding model failed: {error}")
            # The fallback's failure is not shown: the configured profile's is, or its
            # index answers (see .upgrade); requests that needed it say it.
            if state.fail(error) and not requested and self.fixed_profile is None:
                self._server.tell(state.report())
            else:
                log.warning("%s", state.report())
            done.set_exception(state.unavailable())
            done.exception()  # marks it retrieved: only the waiting requests need it
            return
        state.succeed()
        done.set_result(None)
        context_vectors.schedule_open(self._server)

    @staticmethod
    def _load_model_in_thread(assistant: "Assistant", report: Callable[[str], None]) -> None:
        assistant.load_model(progress=report)
        try:
            assistant.warm_up(progress=report)
        except RagginError as error:  # the first search builds what is missing itself
            log.warning("Could not prepare the API pages ahead of the first search: %s", error)
        release_free_memory()  # what loading freed: ~40 MB of resident memory

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
        """Return once ``version`` is searchable: index it when autoIndex allows, else fail.

        A version searchable lexically while its dense vectors are added counts: the
        request is answered at once and the job goes on in the background (finished here
        when an earlier job was stopped).
        """
        await self.opened()
        if version in self.indexed:
            return
        if version in self.stages:
            if self._server.settings.auto_index:
                self.start_index(version)
            return
        if self.catalog is not None:
            self.catalog.require(version)  # an unknown release is named, with the nearest ones
        if not self._server.settings.auto_index:
            raise NotIndexedError(not_indexed_message(version))
        log.info("Next.js %s is not indexed yet: indexing it first (autoIndex)", version)
        await self.assistant()
        job = self._job(version, None)
        await self._wait(job, job.searchable)

    async def index(self, version: str, *, token: Any = None) -> Any:
        """Index ``version`` (or join the job already indexing it) to the end."""
        await self.assistant()
        job = self._job(version, token)
        return await self._wait(job, job.task)

    def _job(self, version: str, token: Any) -> _IndexJob:
        job = self._jobs.get(version)
        if job is None:
            stop = threading.Event()
            searchable: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            task = self._server.jobs.spawn(
                self._index(version, stop, token, searchable), f"index-{version}"
            )
            job = self._jobs[version] = _IndexJob(task, stop, searchable)
        return job

    async def _wait(self, job: _IndexJob, awaited: "asyncio.Future[Any]") -> Any:
        """Wait for the job (or its ``searchable`` moment); the last waiter cancelled
        stops the job."""
        job.waiters += 1
        try:
            return await asyncio.shield(awaited)
        except asyncio.CancelledError:
            if not job.task.done() and job.waiters == 1:
                job.task.cancel("the last request waiting for this index job was cancelled")
            raise
        finally:
            job.waiters -= 1

    async def _refresh(self, assistant: "Assistant") -> None:
        stages = await asyncio.to_thread(assistant.index_stages)
        self.indexed = [version for version, stage in stages.items() if stage == "hybrid"]
        self.stages = {version: stage for version, stage in stages.items() if stage != "hybrid"}

    def _searchable(self, version: str, stage: str, searchable: "asyncio.Future[None]") -> None:
        """On the event loop: a job's version answers searches now (``stage`` says how)."""
        if version not in self.indexed:
            self.stages[version] = stage
        if not searchable.done():
            log.info("Next.js %s is searchable (%s)", version, stage)
            searchable.set_result(None)

    def start_index(self, version: str) -> None:
        """Index in the background (nobody waits; the progress can still cancel it).

        Not while the model's failure holds: that failure was reported once already.
        """
        if version in self._jobs or version in self.indexed:
            return
        if self.model.phase == "failed" and not self.model.may_start():
            return
        self._server.jobs.spawn(self._index_quietly(version), f"auto-index-{version}")

    def job_task(self, version: str) -> "asyncio.Task[Any] | None":
        """The index job running for ``version`` now, if any."""
        job = self._jobs.get(version)
        return job.task if job is not None else None

    def answers(self, version: str) -> bool:
        """Whether this loader's index answers searches of ``version`` now (completely,
        or lexically while its dense vectors are added)."""
        return version in self.indexed or version in self.stages

    def stage(self, version: str) -> str:
        """How ``version`` is searched here: ``hybrid``, ``lexical only, dense 40%``..."""
        if version in self.indexed:
            return "hybrid"
        return self.stages.get(version, "not indexed")

    async def _index_quietly(self, version: str) -> None:
        try:
            await self.index(version)
        except ModelUnavailable as error:  # reported once by the model's load
            log.info("Not indexing Next.js %s: %s", version, error)
        except RagginError as error:
            self._server.tell(str(error))

    async def _index(
        self,
        version: str,
        stop: threading.Event,
        token: Any,
        searchable: "asyncio.Future[None]",
    ) -> Any:
        assistant = await self.assistant()
        loop = asyncio.get_running_loop()
        title = f"Indexing Next.js {version} docs"
        try:
            async with WorkDone(
                self._server, title, token=token, cancellable=True, percentage=True
            ) as work:

                def on_stage(stage: "IndexStage") -> None:
                    if stage.searchable and stage.total:
                        dense = 100 * stage.done // stage.total
                        label = f"lexical only, dense {dense}%"
                        loop.call_soon_threadsafe(self._searchable, version, label, searchable)
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
                        dense_gate=self._server.dense_gate,
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
                await self._refresh(assistant)
                work.end_message = f"Next.js {version} docs indexed"
        except BaseException as error:
            await self._refresh(assistant)
            if not searchable.done():
                stopped = error if isinstance(error, Exception) else None
                searchable.set_exception(
                    stopped or RagginError(f"Indexing Next.js {version} was cancelled.")
                )
                searchable.exception()  # marks it retrieved: only waiting requests need it
            raise
        finally:
            self._jobs.pop(version, None)
            if not searchable.done():
                searchable.set_result(None)
        return result

    async def remove(self, version: str) -> None:
        assistant = await self.opened()  # removing needs no embedding model
        job = self._jobs.get(version)
        if job is not None:
            job.task.cancel("the version is being removed")
            await asyncio.wait([job.task])
        await asyncio.to_thread(assistant.remove, version)
        await self._refresh(assistant)

    def status(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "error": self.error,
            "indexedVersions": list(self.indexed),
            # Searchable while dense vectors are added, with how: "lexical only, dense 40%"
            "indexStages": stages_json(self.stages),
            "indexing": sorted(self._jobs),
            "latest": self.latest,
            "model": self.model.to_json(),
        }


def stages_json(stages: dict[str, str]) -> list[dict[str, str]]:
    """``{version: stage}`` as JSON clients read it: a list of {version, stage} objects."""
    return [{"version": version, "stage": stage} for version, stage in stages.items()]


def _assistant_config(settings: "Settings") -> "AssistantConfig":
    """The pipeline's share of the settings (the pipeline is imported on first use)."""
    from raggin_lsp.assistant import AssistantConfig

    return AssistantConfig.from_settings(settings)


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

"""The whole pipeline behind one object: the CLI and the language server both use it.

``Assistant`` composes the stages (corpus -> embed -> store -> retrieve -> generate) and
holds what is expensive to make: the embedding model and the open index. Blocking
methods (``load``, ``index``, ``search``) belong in a worker thread when called from async
code; ``ask`` is async and cancellable (cancelling its task closes the Ollama stream).
"""

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from raggin_lsp import paths
from raggin_lsp.changes import release_key
from raggin_lsp.content_changes import ContentChanges, NotCompared, content_changes
from raggin_lsp.corpus.apis import ApiCatalog, catalog_key
from raggin_lsp.corpus.versions import Catalog, load_catalog
from raggin_lsp.embed.base import Embedder, ProfileSpec
from raggin_lsp.embed.catalog import DEFAULT_PROFILE, get_profile_spec
from raggin_lsp.errors import RagginError

# The model types only: the Ollama client (half a second to import) loads on first use.
from raggin_lsp.generate.model import Answer, ContextItem, GenerationSettings, Turn
from raggin_lsp.retrieve.docsmap import DocsMap, build_docs_map, cached_docs_map
from raggin_lsp.retrieve.model import Reranker, SearchResult
from raggin_lsp.retrieve.pages import IndexedPage, pages_from_payloads
from raggin_lsp.retrieve.search import search as search_index
from raggin_lsp.retrieve.stages import Stages
from raggin_lsp.retrieve.strategies import DEFAULT_ONE_PER_PAGE
from raggin_lsp.settings import SETTINGS, Settings
from raggin_lsp.store.index import DocsIndex
from raggin_lsp.store.model import IndexProgress, IndexReport
from raggin_lsp.store.settings import StoreSettings

if TYPE_CHECKING:
    from raggin_lsp.embed.base import DenseVector

# After Ollama failed to write a HyDE passage, searches go without one for this long.
HYDE_RETRY_S = 60.0
# The context of a question steers its retrieval: this much of it is embedded.
CODE_CHARS = 2000
# Dense vectors of recent contexts (open files, selections) kept for the next question.
CODE_VECTORS = 16

log = logging.getLogger(__name__)


def steering_code(context: Sequence[ContextItem]) -> str | None:
    """What of a question's context steers its retrieval: the selection or file is part
    of what the user asks about."""
    return "\n".join(item.text for item in context)[:CODE_CHARS] or None


@dataclass(frozen=True)
class IndexStage:
    """Progress of an index job: fetching docs, parsing, the lexical pass, then embedding."""

    stage: str  # "fetch" | "parse" | "lexical" | "embed"
    done: int
    total: int | None
    message: str
    eta_seconds: float | None = None
    searchable: bool = False  # the version answers searches already (lexically at least)

    @property
    def percentage(self) -> int | None:
        if not self.total:
            return None
        return min(100, round(100 * self.done / self.total))


@dataclass(frozen=True)
class AssistantConfig(Settings):
    """What the pipeline needs: the settings (each declared once, in
    :mod:`raggin_lsp.settings`) plus the layout of new collections on a Qdrant server,
    which only the CLI sets. Server-only settings keep their defaults here, so changing
    one never reloads the index."""

    shard_number: int = 1
    replication_factor: int = 1

    @classmethod
    def from_settings(cls, settings: Settings, **extra: Any) -> "AssistantConfig":
        values = {
            setting.field_name: getattr(settings, setting.field_name)
            for setting in SETTINGS
            if not setting.server_only
        }
        return cls(**values, **extra)

    def store_settings(self) -> StoreSettings:
        return StoreSettings(
            path=self.qdrant_path,
            url=self.qdrant_url,
            api_key=self.qdrant_api_key,
            shard_number=self.shard_number,
            replication_factor=self.replication_factor,
        )

    def generation_settings(
        self, model: str | None = None, options: dict[str, Any] | None = None
    ) -> GenerationSettings:
        merged = {**GenerationSettings().options, **self.generation.options(), **(options or {})}
        return GenerationSettings(
            host=self.ollama_host,
            model=model or self.model,
            options=merged,
            history_turns=self.history_turns,
            first_token_timeout=self.first_token_timeout,
        )


class Assistant:
    """One embedding model and one index, shared by every request of a process."""

    def __init__(self, config: AssistantConfig) -> None:
        self.config = config
        self._load_lock = threading.Lock()  # the models
        self._index_lock = threading.Lock()  # not the models': the index opens without them
        self._embedder: Embedder | None = None
        self._index: DocsIndex | None = None
        self._catalog: Catalog | None = None
        self._docs_maps: dict[tuple[str, float | None], DocsMap] = {}
        self._reranker: Reranker | None = None
        self._reranker_error: RagginError | None = None  # reported once, then remembered
        self._hyde_paused_until = 0.0
        self._api_catalogs: dict[str, ApiCatalog] = {}
        self._pages: dict[tuple[str, float | None], dict[str, IndexedPage]] = {}
        self._code_vectors: OrderedDict[str, DenseVector] = OrderedDict()
        self._code_lock = threading.Lock()

    # ----------------------------------------------------------------- loading

    @property
    def spec(self) -> ProfileSpec:
        """The profile's description, known without loading its model."""
        return get_profile_spec(self.config.profile, model_path=self.config.model_path)

    @property
    def loaded(self) -> bool:
        return self._embedder is not None

    def load(self, progress: Callable[[str], None] | None = None) -> None:
        """Load the embedding model and open the index (idempotent, blocking)."""
        self.load_model(progress)
        _ = self.index_store

    def load_model(self, progress: Callable[[str], None] | None = None) -> Embedder:
        """Load (or download) the embedding model only (idempotent, blocking).

        The index opens without it: listing versions, API catalogs and removing a
        version need no model.
        """
        from raggin_lsp.embed.loading import load_embedder  # imports onnxruntime: slow

        with self._load_lock:
            if self._embedder is None:
                self._embedder = load_embedder(
                    self.config.profile, model_path=self.config.model_path, progress=progress
                )
            return self._embedder

    def _open_index(self) -> DocsIndex:
        if self._index is None:
            self._index = DocsIndex.open(self.config.store_settings(), self.spec)
        return self._index

    @property
    def index_store(self) -> DocsIndex:
        with self._index_lock:
            return self._open_index()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self.load()
        assert self._embedder is not None
        return self._embedder

    def close(self) -> None:
        with self._index_lock:
            if self._index is not None:
                self._index.close()
                self._index = None

    # ----------------------------------------------------------------- versions

    def catalog(self) -> Catalog:
        if self._catalog is None:
            self._catalog = load_catalog()
        return self._catalog

    def known_versions(self) -> list[str]:
        """Every Next.js release in the catalog, oldest first."""
        return self.catalog().versions

    def indexed_versions(self) -> list[str]:
        """Versions indexed completely (every vector stored)."""
        return self.index_store.versions()

    def index_stages(self) -> dict[str, str]:
        """Every searchable version and how it is searched: ``hybrid``, or ``lexical only,
        dense 40%`` while its dense vectors are being added."""
        infos = {info.version: info for info in self.index_store.version_infos()}
        return {version: infos[version].stage for version in self.index_store.searchable_versions()}

    def index_stage(self, version: str) -> str:
        """How searches of ``version`` are answered now (see :meth:`index_stages`)."""
        info = self.index_store.version_info(version)
        return info.stage if info is not None else "not indexed"

    def resolve_version(self, spec: str) -> str:
        """An exact release for ``spec`` (a version, an npm range or ``latest``)."""
        if spec in self.indexed_versions():
            return spec
        return self.catalog().resolve(spec)

    # ----------------------------------------------------------------- indexing

    def index(
        self,
        version: str,
        *,
        workspace: Path | None = None,
        from_path: Path | None = None,
        progress: Callable[[IndexStage], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        dense_gate: Callable[[], None] | None = None,
    ) -> IndexReport:
        """Fetch, parse, embed and store one version; embeds only sections not stored yet.

        With the light profile the version is searchable lexically seconds after its
        docs are parsed (``IndexStage.searchable``), long before this returns.
        ``dense_gate`` runs before each batch of dense vectors (see
        :meth:`DocsIndex.index_version`)."""
        version = self.resolve_version(version)

        def report(stage: IndexStage) -> None:
            if progress is not None:
                progress(stage)

        def fetched(done: int, total: int | None) -> None:
            report(IndexStage("fetch", done, total, f"Downloading the Next.js {version} docs"))

        report(IndexStage("fetch", 0, None, f"Getting the Next.js {version} docs"))
        # Fetching and parsing load httpx and mistune: only index jobs pay for them.
        from raggin_lsp.corpus.fetch import ensure_docs
        from raggin_lsp.corpus.parse import parse_docs_tree
        from raggin_lsp.corpus.summary import with_page_summaries

        root = ensure_docs(version, workspace=workspace, from_path=from_path, progress=fetched)
        report(IndexStage("parse", 0, None, f"Parsing the Next.js {version} docs"))
        embedder = self.embedder
        sections = with_page_summaries(
            parse_docs_tree(
                root,
                version,
                max_tokens=embedder.spec.chunk_tokens,
                count_tokens=embedder.count_tokens,
            )
        )

        def embedded(step: IndexProgress) -> None:
            if step.phase == "lexical":
                message = (
                    f"Storing Next.js {version} for lexical search: "
                    f"{step.done}/{step.total} sections"
                )
            elif step.searchable:
                dense = 100 * step.done // step.total if step.total else 100
                message = (
                    f"Next.js {version} is searchable (lexical only, dense {dense}%): "
                    f"dense vectors {step.done}/{step.total} sections"
                )
            else:
                message = f"Indexing Next.js {version}: {step.done}/{step.total} sections"
            report(
                IndexStage(
                    "lexical" if step.phase == "lexical" else "embed",
                    step.done,
                    step.total,
                    message,
                    step.eta_seconds,
                    searchable=step.searchable,
                )
            )

        return self.index_store.index_version(
            version,
            sections,
            embedder,
            progress=embedded,
            should_stop=should_stop,
            dense_gate=dense_gate,
        )

    def remove(self, version: str) -> int:
        """Unlist ``version`` and delete the sections no other version uses."""
        return self.index_store.remove_version(version)

    # ----------------------------------------------------------------- answering

    def search(
        self,
        query: str,
        version: str,
        *,
        router: str | None = None,
        code: str | None = None,
        top_k: int | None = None,
        fusion: str | None = None,
        one_per_page: bool = DEFAULT_ONE_PER_PAGE,
        stages: Stages | None = None,
    ) -> list[SearchResult]:
        chosen = stages if stages is not None else self.config.stages
        index = self.index_store
        return search_index(
            index,
            self.embedder,
            query,
            version,
            router=router,
            code=code,
            embed_code=self.code_vector,
            top_k=top_k if top_k is not None else self.config.top_k,
            fusion=fusion or self.config.fusion,  # type: ignore[arg-type]
            one_per_page=one_per_page,
            stages=chosen,
            docs_map=self.docs_map(version) if chosen.needs_docs_map else None,
            reranker=self.reranker() if chosen.rerank else None,
            hypothetical=self.hypothetical_passage(query, version) if chosen.hyde else None,
        )

    def code_vector(self, code: str) -> "DenseVector":
        """The dense vector that lets ``code`` steer a search, computed once for the
        last few snippets: the questions asked about one file share it."""
        with self._code_lock:
            vector = self._code_vectors.get(code)
            if vector is not None:
                self._code_vectors.move_to_end(code)
                return vector
        vector = self.embedder.embed_query(code).dense
        with self._code_lock:
            self._code_vectors[code] = vector
            while len(self._code_vectors) > CODE_VECTORS:
                self._code_vectors.popitem(last=False)
        return vector

    def prepare_context(self, context: Sequence[ContextItem]) -> None:
        """Embed now what :meth:`ask` would embed of ``context`` (blocking): the language
        server calls it when a file opens or changes, before any question about it."""
        code = steering_code(context)
        if code is not None and code.strip():
            self.code_vector(code)

    def reranker(self) -> Reranker:
        """The cross-encoder of the ``rerank`` stage, loaded (or downloaded) on first use.

        A failure is raised once with what to do, and then again at once on every later
        call: nothing retries a download on each search.
        """
        with self._load_lock:
            if self._reranker_error is not None:
                raise self._reranker_error
            if self._reranker is None:
                from raggin_lsp.retrieve.rerank import CrossEncoderReranker  # loads onnxruntime

                try:
                    self._reranker = CrossEncoderReranker(self.config.reranker_model)
                except RagginError as error:
                    self._reranker_error = error
                    raise
            return self._reranker

    def missing_model(self, stages: Stages) -> str | None:
        """Why a stage of ``stages`` cannot run here (its model is missing), else ``None``.

        For an evaluation: a HyDE stage without Ollama would quietly measure the search
        without it.
        """
        try:
            if stages.rerank:
                self.reranker()
            if stages.hyde:
                from raggin_lsp.generate.ollama_api import ModelNotInstalledError

                installed = asyncio.run(self.models())
                if not {self.config.model, f"{self.config.model}:latest"} & set(installed):
                    raise ModelNotInstalledError(self.config.model, self.config.ollama_host)
        except RagginError as error:
            return str(error)
        return None

    def hypothetical_passage(self, question: str, version: str) -> str | None:
        """What the local model imagines the answer's docs passage to be (``hyde`` stage).

        ``None`` when Ollama or its model is missing: the search goes on without it, and
        for ``HYDE_RETRY_S`` seconds later searches do not try again, so none waits on it.
        """
        if time.monotonic() < self._hyde_paused_until:
            return None
        from raggin_lsp.generate.ollama_api import OllamaError
        from raggin_lsp.generate.planning import hypothetical_passage

        try:
            return hypothetical_passage(question, version, self.config.generation_settings())
        except OllamaError as error:
            log.info("Searching without a HyDE passage for %.0f s: %s", HYDE_RETRY_S, error)
            self._hyde_paused_until = time.monotonic() + HYDE_RETRY_S
            return None

    def warm_up(self, progress: Callable[[str], None] | None = None) -> None:
        """Prepare now what the first search and the first answer would otherwise wait
        for: the Ollama client's TLS settings (which read the CA bundle) and what each
        indexed version's docs say about their APIs (the retrieval stages need it)."""
        from raggin_lsp.generate.ollama_api import tls_context  # imports ollama and httpx

        tls_context()
        if not self.config.stages.needs_docs_map:
            return
        for version in self.indexed_versions():
            if progress is not None:
                progress(f"Reading the API pages of the Next.js {version} docs")
            self.docs_map(version)

    def api_catalog(self, version: str) -> ApiCatalog:
        """The APIs ``version``'s docs document (built from its docs once, then cached)."""
        from raggin_lsp.corpus.apis import load_catalog as load_api_catalog

        if version not in self._api_catalogs:
            self._api_catalogs[version] = load_api_catalog(version)
        return self._api_catalogs[version]

    def docs_map(self, version: str) -> DocsMap:
        """What ``version``'s docs say about their APIs (built once, then cached on disk)."""
        index = self.index_store
        index.require_version(version, partial=True)
        info = next(i for i in index.version_infos() if i.version == version and i.searchable)
        # The payloads are final once a version is searchable; its dense vectors do not
        # change the map. A version indexed again gets another start time.
        stamp = info.completed_at if info.complete else info.started_at
        key = (version, stamp)
        if key not in self._docs_maps:
            catalog = self._cached_api_catalog(version)
            # The map changes with the catalog's rules, and when the docs come to be cached.
            made_with = catalog_key(version) if catalog is not None else "no-catalog"
            self._docs_maps[key] = cached_docs_map(
                f"{info.collection}-{version}-{stamp}-{info.sections}-{made_with}",
                paths.cache_dir() / "docs-maps",
                lambda: build_docs_map(version, index.payloads_of(version, partial=True), catalog),
            )
        return self._docs_maps[key]

    def _cached_api_catalog(self, version: str) -> ApiCatalog | None:
        """The API catalog when it needs no download (searches never wait on one)."""
        from raggin_lsp.corpus.apis import cached_catalog

        if version not in self._api_catalogs:
            try:
                catalog = cached_catalog(version)
            except (OSError, ValueError, RagginError) as error:  # a damaged docs cache
                log.warning("Cannot read the API catalog of Next.js %s: %s", version, error)
                return None
            if catalog is None:
                log.info("No cached docs for Next.js %s: searches use no API catalog", version)
                return None
            self._api_catalogs[version] = catalog
        return self._api_catalogs[version]

    def pages(self, version: str) -> dict[str, IndexedPage]:
        """Every page of an indexed ``version`` by site path, as stored (built once)."""
        index = self.index_store
        index.require_version(version)
        info = next(i for i in index.version_infos() if i.version == version and i.complete)
        key = (version, info.completed_at)
        if key not in self._pages:
            self._pages[key] = pages_from_payloads(version, index.payloads_of(version))
        return self._pages[key]

    def page(self, version: str, url_path: str) -> IndexedPage:
        """One page of an indexed ``version``; a :class:`RagginError` names close ones."""
        pages = self.pages(version)
        found = pages.get(url_path.rstrip("/") or "/docs")
        if found is not None:
            return found
        from difflib import get_close_matches

        close = get_close_matches(url_path, list(pages), n=3, cutoff=0.6)
        hint = f"; close ones: {', '.join(close)}" if close else ""
        raise RagginError(f"The Next.js {version} docs have no page {url_path}{hint}.")

    def content_changes(
        self, since: str, until: str, pages: Collection[str] | None = None
    ) -> ContentChanges | NotCompared:
        """The pages (only those in ``pages`` when given) whose content changed from
        ``since`` to ``until``, read from the index; when either version is not indexed,
        which ones are not and the commands that index them. Needs no embedding model."""
        indexed = {release_key(version): version for version in self.indexed_versions()}
        found = [indexed.get(release_key(version)) for version in (since, until)]
        missing = tuple(v for v, f in zip((since, until), found, strict=True) if f is None)
        if missing:
            profile = "" if self.spec.name == DEFAULT_PROFILE else f" --profile {self.spec.name}"
            commands = tuple(f"raggin-lsp index {version}{profile}" for version in missing)
            return NotCompared(since, until, missing, commands)
        old, new = (self.pages(version) for version in found if version is not None)
        return content_changes(since, until, old, new, pages)

    async def ask(
        self,
        question: str,
        version: str,
        *,
        router: str | None = None,
        context: Sequence[ContextItem] = (),
        history: Sequence[Turn] = (),
        model: str | None = None,
        options: dict[str, Any] | None = None,
        top_k: int | None = None,
        on_chunk: Callable[[str], None] | None = None,
    ) -> Answer:
        """Retrieve sections of ``version`` for ``question`` and answer from them; a question
        about what changed between versions gets the Version History rows first."""
        started = time.perf_counter()
        code = steering_code(context)

        def retrieve() -> tuple[list[SearchResult], list[SearchResult]]:
            # One trip to a worker thread: the first token waits for all of it.
            found = self.search(question, version, router=router, code=code, top_k=top_k)
            return found, self.history_sources(question, version)

        results, rows = await asyncio.to_thread(retrieve)
        if rows:
            shown = {source.url for source in rows}
            results = [*rows, *(r for r in results if r.url not in shown)]
        retrieved = time.perf_counter() - started
        from raggin_lsp.generate.answer import answer_question

        answer = await answer_question(
            question,
            results,
            version=version,
            settings=self.config.generation_settings(model, options),
            context=context,
            history=history,
            on_chunk=on_chunk,
        )
        return replace(answer, timings={"retrieval_s": retrieved, **answer.timings})

    def history_sources(self, question: str, version: str) -> list[SearchResult]:
        """When ``question`` asks what changed or how to upgrade, the Version History rows
        of ``version``'s docs that answer it, as sources (none otherwise)."""
        from raggin_lsp.changes_asked import asked_changes, changes_for, history_sources

        asked = asked_changes(question, version)
        if asked is None:
            return []
        try:
            catalog = self.api_catalog(version)
        except (RagginError, OSError) as error:
            log.info("Answering without the Version History rows of %s: %s", version, error)
            return []
        return history_sources(changes_for(catalog, asked), version)

    async def models(self) -> list[str]:
        from raggin_lsp.generate.ollama_api import list_models

        return await list_models(self.config.ollama_host)

    async def status(self) -> dict[str, Any]:
        from raggin_lsp.generate.ollama_api import is_reachable

        store = self.config.store_settings()
        indexed = await asyncio.to_thread(self.indexed_versions)
        stages = await asyncio.to_thread(self.index_stages)
        return {
            "profile": self.config.profile,
            "modelLoaded": self.loaded,
            "indexedVersions": indexed,
            "indexStages": [{"version": v, "stage": stage} for v, stage in stages.items()],
            "indexLocation": store.location,
            "ollamaHost": self.config.ollama_host,
            "ollamaReachable": await is_reachable(self.config.ollama_host),
            "model": self.config.model,
        }

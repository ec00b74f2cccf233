"""The real raggin language server, with a scripted Assistant and release catalog.

Protocol tests run it as ``python tests/server/fake_server.py``: every LSP path is the
real one, while search, ask and index are instant and predictable. The script comes
from the ``RAGGIN_FAKE`` environment variable (JSON, see :class:`Script`).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from raggin_lsp.assistant import AssistantConfig, IndexStage
from raggin_lsp.content_changes import ContentChanges, NotCompared
from raggin_lsp.corpus.apis import ApiCatalog, catalog_of_tree
from raggin_lsp.corpus.model import CodeSnippet
from raggin_lsp.corpus.urls import site_url
from raggin_lsp.corpus.versions import Catalog, Release
from raggin_lsp.errors import RagginError
from raggin_lsp.generate.model import Answer, Citation, ContextItem
from raggin_lsp.retrieve.model import SearchResult
from raggin_lsp.server.diagnostics import Catalogs, load_catalog

RELEASES = ("15.5.9", "16.1.0", "16.2.0", "16.4.6")
PAGES = {
    "revalidatePath": "/docs/app/api-reference/functions/revalidatePath",
    "Image": "/docs/app/api-reference/components/image",
    "Link": "/docs/app/api-reference/components/link",
    "use server": "/docs/app/api-reference/directives/use-server",
    "page": "/docs/app/api-reference/file-conventions/page",
}


@dataclass
class Script:
    indexed: list[str] = field(default_factory=lambda: ["16.2.0"])
    lexical: list[str] = field(default_factory=list)  # searchable, dense vectors still to come
    load_delay: float = 0.0
    load_error: str | None = None
    chunks: list[str] = field(default_factory=lambda: ["Use ", "`revalidatePath` ", "[1]."])
    chunk_delay: float = 0.0
    ask_error: str | None = None
    index_batches: int = 5
    batch_delay: float = 0.02
    models: list[str] = field(default_factory=lambda: ["qwen2.5-coder:7b"])
    docs_root: str | None = None  # a real docs tree: the API catalog is derived from it
    catalog_delay: float = 0.0  # seconds each API catalog build takes on top of its own
    catalog_started: str | None = None  # a file created when an API catalog build starts


LEXICAL_STAGE = "lexical only, dense 40%"
SCRIPT = Script(**json.loads(os.environ.get("RAGGIN_FAKE", "{}")))
COUNTERS = {"asks": 0, "asks_cancelled": 0, "asks_finished": 0, "index_stopped": 0}


def result(version: str, page: str, heading: str, text: str, score: float) -> SearchResult:
    title = page.rsplit("/", 1)[-1]
    return SearchResult(
        url=site_url(page, version, 16) + "#" + heading.lower().replace(" ", "-"),
        url_path=page,
        anchor=heading.lower().replace(" ", "-"),
        version=version,
        title=title,
        heading_path=(title, heading),
        text=text,
        code=(CodeSnippet("ts", "revalidatePath('/blog')"),),
        router="app",
        tag="docs",
        score=score,
    )


class FakeAssistant:
    def __init__(self, config: AssistantConfig) -> None:
        self.config = config
        self.indexed = set(SCRIPT.indexed)
        self.calls: list[dict[str, Any]] = []
        self.loaded = False

    def load_model(self, progress: Callable[[str], None] | None = None) -> None:
        if progress:
            progress("Loading the embedding model")
        time.sleep(SCRIPT.load_delay)
        if SCRIPT.load_error:
            raise RagginError(SCRIPT.load_error)
        self.loaded = True

    def prepare_context(self, context: Sequence[ContextItem]) -> None:
        """Nothing to embed ahead: the scripted answers need no vectors."""

    def warm_up(self, progress: Callable[[str], None] | None = None) -> None:
        """Nothing to read ahead: the scripted answers need no docs map."""

    def api_catalog(self, version: str) -> ApiCatalog:
        """The real catalog, built from the real docs tree the test names."""
        if SCRIPT.docs_root is None:
            return ApiCatalog(version)
        return catalog_of_tree(Path(SCRIPT.docs_root), version)

    def indexed_versions(self) -> list[str]:
        return sorted(self.indexed)

    def index_stages(self) -> dict[str, str]:
        lexical = dict.fromkeys(sorted(set(SCRIPT.lexical) - self.indexed), LEXICAL_STAGE)
        return {**dict.fromkeys(sorted(self.indexed), "hybrid"), **lexical}

    def index_stage(self, version: str) -> str:
        return self.index_stages().get(version, "not indexed")

    def known_versions(self) -> list[str]:
        return list(RELEASES)

    def content_changes(
        self, since: str, until: str, pages: Sequence[str] | None = None
    ) -> ContentChanges | NotCompared:
        """No page changed between two indexed versions (the fake stores no pages)."""
        missing = tuple(version for version in (since, until) if version not in self.indexed)
        if missing:
            commands = tuple(f"raggin-lsp index {version}" for version in missing)
            return NotCompared(since, until, missing, commands)
        return ContentChanges(since, until, (), 0)

    def index(
        self,
        version: str,
        *,
        workspace: Path | None = None,
        progress: Callable[[IndexStage], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        dense_gate: Callable[[], None] | None = None,
    ) -> dict[str, Any]:
        for batch in range(SCRIPT.index_batches):
            if should_stop and should_stop():
                COUNTERS["index_stopped"] += 1
                raise RagginError(f"Indexing Next.js {version} stopped")
            time.sleep(SCRIPT.batch_delay)
            if progress:
                progress(
                    IndexStage("embed", batch + 1, SCRIPT.index_batches, f"Embedding {batch + 1}")
                )
        self.indexed.add(version)
        return {"version": version, "sections": 10 * SCRIPT.index_batches}

    def remove(self, version: str) -> None:
        self.indexed.discard(version)

    def search(
        self,
        query: str,
        version: str,
        *,
        router: str | None = None,
        code: str | None = None,
        top_k: int | None = None,
        fusion: str | None = None,
        one_per_page: bool = False,
    ) -> list[SearchResult]:
        self.calls.append({"query": query, "version": version, "router": router, "top_k": top_k})
        found = [
            result(version, page, f"{name} reference", f"How to use {name} in {version}.", 0.9)
            for name, page in PAGES.items()
            if name.lower() in query.lower()
        ]
        # A distractor that ranks first: the hover must still prefer the curated page.
        found.insert(
            0, result(version, "/docs/app/getting-started/caching", "Caching", "Caching.", 1.0)
        )
        return found[: top_k or 5]

    async def ask(
        self,
        question: str,
        version: str,
        *,
        router: str | None = None,
        context: Sequence[Any] = (),
        history: Sequence[Any] = (),
        model: str | None = None,
        options: dict[str, Any] | None = None,
        on_chunk: Callable[[str], None] | None = None,
    ) -> Answer:
        COUNTERS["asks"] += 1
        self.calls.append(
            {
                "question": question,
                "version": version,
                "context": [getattr(item, "label", None) for item in context],
                "history": len(history),
                "model": model,
                "options": options,
            }
        )
        if SCRIPT.ask_error:
            raise RagginError(SCRIPT.ask_error)
        generated = ""
        try:
            for chunk in SCRIPT.chunks:
                await asyncio.sleep(SCRIPT.chunk_delay)
                generated += chunk
                if on_chunk:
                    on_chunk(chunk)
        except asyncio.CancelledError:
            COUNTERS["asks_cancelled"] += 1
            raise
        COUNTERS["asks_finished"] += 1
        page = PAGES["revalidatePath"]
        citation = Citation(1, site_url(page, version, 16), "revalidatePath", version)
        return Answer(
            text=f"{generated}\n\nSources (Next.js {version} docs):\n[1] {citation.url}",
            generated=generated,
            citations=[citation],
            model=model,
            version=version,
            used_llm=True,
            timings={"retrieve": 0.01, "generate": 0.02},
        )

    async def models(self) -> list[str]:
        return list(SCRIPT.models)

    async def status(self) -> dict[str, Any]:
        return {
            "indexedVersions": sorted(self.indexed),
            "profile": self.config.profile,
            "counters": dict(COUNTERS),
            "calls": self.calls[-5:],
        }


def fake_catalog() -> Catalog:
    return Catalog(
        releases=tuple(Release(v, "npm-bundled") for v in RELEASES),
        latest=RELEASES[-1],
        origin="snapshot",
    )


def scripted_catalog(version: str, workspace: Path | None) -> ApiCatalog:
    """The real API catalog, built as slowly as the script says."""
    if SCRIPT.catalog_started is not None:
        Path(SCRIPT.catalog_started).touch()
    time.sleep(SCRIPT.catalog_delay)
    return load_catalog(version, workspace)


def main() -> int:
    import raggin_lsp.assistant
    import raggin_lsp.server.loading
    from raggin_lsp.server.entry import serve

    raggin_lsp.assistant.Assistant = FakeAssistant  # type: ignore[misc,assignment]
    raggin_lsp.server.loading._load_catalog = fake_catalog  # type: ignore[assignment]
    return serve(sys.argv[1:], catalogs=Catalogs(scripted_catalog))


if __name__ == "__main__":
    sys.exit(main())

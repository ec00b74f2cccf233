"""In-process measurements of the pipeline: indexing throughput, reuse between versions,
warm search latency. Everything here is blocking and uses one loaded embedder."""

import contextlib
import os
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from raggin_lsp.corpus.fetch import ensure_docs
from raggin_lsp.corpus.model import Section
from raggin_lsp.corpus.parse import parse_docs_tree
from raggin_lsp.embed.base import Embedder, ProfileSpec
from raggin_lsp.store.index import DocsIndex
from raggin_lsp.store.model import IndexInterrupted, IndexProgress
from raggin_lsp.store.schema import distinct_texts
from raggin_lsp.store.settings import StoreSettings

# Questions a Next.js developer asks; the same list on every run, so runs compare.
QUERIES = (
    "How do I revalidate a path after a server action?",
    "What is the difference between layout and template?",
    "How do route groups work?",
    "How to read cookies in a server component",
    "generateStaticParams for dynamic routes",
    "How do I configure images from a remote domain?",
    "useRouter is not working in the app directory",
    "What does the 'use client' directive do?",
    "How do I set metadata for a page?",
    "middleware redirect based on a header",
    "How can I stream a page with Suspense and loading.js?",
    "fetch caching options and revalidate",
)


def parse_version(version: str, embedder: Embedder) -> list[Section]:
    """The sections indexing ``version`` would store (docs fetched if not cached)."""
    root = ensure_docs(version)
    return parse_docs_tree(
        root, version, max_tokens=embedder.spec.chunk_tokens, count_tokens=embedder.count_tokens
    )


def docs_download_seconds(version: str) -> float | str:
    """Seconds to fetch ``version``'s docs into an empty cache, as a new user's first
    `raggin-lsp index` does; the reason instead when they cannot be fetched (offline)."""
    from raggin_lsp.errors import RagginError

    previous = os.environ.get("RAGGIN_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="raggin-bench-docs-") as folder:
        os.environ["RAGGIN_CACHE_DIR"] = folder
        try:
            started = time.perf_counter()
            ensure_docs(version)
            return time.perf_counter() - started
        except RagginError as error:
            return str(error)
        finally:
            if previous is None:
                os.environ.pop("RAGGIN_CACHE_DIR", None)
            else:
                os.environ["RAGGIN_CACHE_DIR"] = previous


def unique_sections(sections: Sequence[Section]) -> dict[str, Section]:
    """By content hash, as the store keys them (equal sections are stored once)."""
    return {section.content_hash: section for section in sections}


def section_share(before: Sequence[Section], after: Sequence[Section]) -> tuple[int, int]:
    """(sections of ``after`` not stored for ``before``, unique sections of ``after``)."""
    known = unique_sections(before)
    new = unique_sections(after)
    return sum(1 for content_hash in new if content_hash not in known), len(new)


def reembed_share(
    before: Sequence[Section], after: Sequence[Section], spec: ProfileSpec
) -> tuple[int, int]:
    """(texts of ``after`` the model runs once ``before`` is indexed, texts of ``after``).

    A text (paragraph, heading path, code snippet, or a section embedded whole) already
    embedded for ``before`` comes from the index's vector cache; each counts once."""
    known = distinct_texts(before, spec)
    new = distinct_texts(after, spec)
    return len(new - known), len(new)


def sample(sections: Sequence[Section], size: int, seed: int) -> list[Section]:
    unique = list(unique_sections(sections).values())
    return random.Random(seed).sample(unique, min(size, len(unique)))


def index_sample_rates(
    sections: Sequence[Section],
    version: str,
    embedder: Embedder,
    *,
    sample_size: int,
    repeat: int,
    seed: int = 0,
) -> list[float]:
    """Sections per second embedding and storing a fresh random sample, ``repeat`` times.

    Each run writes to a new embedded Qdrant folder, so nothing is reused between runs;
    each run draws another sample, so the spread includes the sections' mix of lengths.
    """
    embedder.embed_documents(["warm up the model"])  # the first run allocates; not indexing
    rates: list[float] = []
    with tempfile.TemporaryDirectory(prefix="raggin-bench-") as folder:
        for run in range(repeat):
            chosen = sample(sections, sample_size, seed + run)
            settings = StoreSettings(path=Path(folder) / f"run-{run}")
            with DocsIndex.open(settings, embedder.spec) as index:
                started = time.perf_counter()
                report = index.index_version(version, chosen, embedder)
                seconds = time.perf_counter() - started
            if report.embedded != len(chosen):
                raise RuntimeError(f"expected {len(chosen)} sections embedded, got {report}")
            rates.append(len(chosen) / seconds)
    return rates


def seconds_until_searchable(
    sections: Sequence[Section], version: str, embedder: Embedder
) -> float:
    """Seconds the index job takes, from its start, to make ``version`` searchable in a
    fresh embedded Qdrant: the lexical pass (BM25, no neural model) with its publication.
    The job is stopped there, through its own stop check, before any dense vector."""
    searchable: list[float] = []

    def note(step: IndexProgress) -> None:
        if step.searchable and not searchable:
            searchable.append(time.perf_counter())

    with (
        tempfile.TemporaryDirectory(prefix="raggin-bench-") as folder,
        DocsIndex.open(StoreSettings(path=Path(folder)), embedder.spec) as index,
    ):
        started = time.perf_counter()
        with contextlib.suppress(IndexInterrupted):  # stopped once searchable, as asked
            index.index_version(
                version, sections, embedder, progress=note, should_stop=lambda: bool(searchable)
            )
        info = index.version_info(version)
    if not searchable or info is None or not info.searchable:
        raise RuntimeError(f"Next.js {version} did not become searchable before the dense pass")
    return searchable[0] - started

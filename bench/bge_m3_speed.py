"""Speed of the ``bge-m3`` code path on BGE-M3's architecture with random weights.

:func:`measure_bge_m3` runs in a worker process (its peak RSS is then the model's own):
it builds or reuses the random-weights folder (:mod:`bench.random_bge_m3`),
loads it through :func:`raggin_lsp.embed.load_embedder` exactly as a real BGE-M3 folder
given as ``model_path``, and times queries and a sample of real sections of a version.
The whole-version time is extrapolated from the sample by token count, since an
encoder's time grows with the tokens it reads (and faster than linearly for long ones,
which a random sample of real sections carries in the right proportion).
"""

import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.report import BGE_M3, Row
from bench.stats import peak_rss_mb_self, summarize, time_calls
from bench.xlmr_graph import BGE_M3_ARCHITECTURE, Architecture

ROW_NAMES = (
    ("build the random-weights model (once, cached)", "s"),
    ("load the model", "s"),
    ("query embedding latency", "ms"),
    ("index throughput, sample of real sections", "sections/s"),
    ("whole-version index time (extrapolated)", "min"),
    ("peak RSS, bench worker process", "MB"),
)


@dataclass(frozen=True)
class BgeM3Plan:
    version: str
    query_runs: int
    sample_texts: int  # texts (section texts and code snippets) embedded per run
    sample_runs: int
    architecture: Architecture = BGE_M3_ARCHITECTURE
    seed: int = 0


def skipped_rows(reason: str) -> list[Row]:
    return [Row.unavailable(BGE_M3, name, unit, reason) for name, unit in ROW_NAMES]


def docs_texts(version: str) -> Iterator[str]:
    """The raw Markdown of a version's docs: what the tokenizer is trained on."""
    from raggin_lsp.corpus.fetch import ensure_docs

    root = ensure_docs(version)
    for path in sorted((root / "docs").rglob("*.md")):
        yield path.read_text(encoding="utf-8")


def _say(message: str) -> None:
    print(f"bench: bge-m3: {message}", file=sys.stderr, flush=True)


def measure_bge_m3(plan: BgeM3Plan, cache: Path | None = None) -> list[Row]:
    from bench.pipeline import QUERIES
    from bench.random_bge_m3 import cached_random_bge_m3
    from raggin_lsp.corpus.fetch import ensure_docs
    from raggin_lsp.corpus.parse import parse_docs_tree
    from raggin_lsp.embed.base import ProfileSpec
    from raggin_lsp.embed.bge_m3 import BgeM3Embedder
    from raggin_lsp.embed.catalog import BGE_M3 as PROFILE
    from raggin_lsp.embed.catalog import get_profile_spec
    from raggin_lsp.store.schema import texts_to_embed

    arch = plan.architecture
    model = cached_random_bge_m3(
        lambda: docs_texts(plan.version),
        corpus=f"next@{plan.version}",
        arch=arch,
        seed=plan.seed,
        cache=cache,
        progress=_say,
    )
    built = (
        f"built in an earlier run ({model.parameters / 1e6:.0f}M weights), cached in {model.folder}"
        if model.reused
        else f"built now ({model.parameters / 1e6:.0f}M weights) into {model.folder}"
    )
    spec = get_profile_spec(PROFILE.name)
    if arch.hidden != spec.dense_dim:  # a small variant (tests): same path, its own width
        spec = ProfileSpec(PROFILE.name, arch.hidden, spec.chunk_tokens, False, "bench-variant")
    max_tokens = min(PROFILE.max_tokens, arch.max_tokens)
    _say("loading the model")
    started = time.perf_counter()
    embedder = BgeM3Embedder(
        model.folder,
        spec,
        max_tokens=max_tokens,
        batch_size=PROFILE.default_batch_size,
        profile=PROFILE,
    )
    load_seconds = time.perf_counter() - started

    queries = iter(QUERIES * (plan.query_runs // len(QUERIES) + 2))
    embedder.embed_query(next(queries))  # warm-up
    query_ms = [
        s * 1000 for s in time_calls(lambda: embedder.embed_query(next(queries)), plan.query_runs)
    ]

    _say(f"parsing the Next.js {plan.version} docs with the bge-m3 section budget")
    sections = parse_docs_tree(
        ensure_docs(plan.version),
        plan.version,
        max_tokens=spec.chunk_tokens,
        count_tokens=embedder.count_tokens,
    )
    unique = {section.content_hash: section for section in sections}
    texts = [text for section in unique.values() for text in texts_to_embed(section, spec)]
    lengths = [min(embedder.count_tokens(text), max_tokens) for text in texts]
    total_tokens = sum(lengths)

    rates: list[float] = []  # sections per second, from tokens per second
    minutes: list[float] = []  # whole version
    for run in range(plan.sample_runs):
        picked = random.Random(plan.seed + run).sample(
            range(len(texts)), min(plan.sample_texts, len(texts))
        )
        _say(f"embedding sample {run + 1}/{plan.sample_runs} ({len(picked)} texts)")
        started = time.perf_counter()
        embedder.embed_documents([texts[i] for i in picked])
        seconds = time.perf_counter() - started
        whole = seconds * total_tokens / sum(lengths[i] for i in picked)
        minutes.append(whole / 60)
        rates.append(len(unique) / whole)
    whole_note = (
        f"{len(unique)} sections + {len(texts) - len(unique)} code snippets = "
        f"{total_tokens:,} tokens of Next.js {plan.version}, at the sample's tokens/s"
    )
    return [
        Row(BGE_M3, *ROW_NAMES[0], model.build_seconds, note=built),
        Row(BGE_M3, *ROW_NAMES[1], load_seconds, note="onnxruntime session + tokenizer + head"),
        Row.of(BGE_M3, *ROW_NAMES[2], summarize(query_ms), "one short question, batch 1"),
        Row.of(
            BGE_M3,
            *ROW_NAMES[3],
            summarize(rates),
            f"embedding only: {plan.sample_texts} random texts per run (text + code, "
            f"batch {PROFILE.default_batch_size}), scaled by tokens to whole sections",
        ),
        Row.of(BGE_M3, *ROW_NAMES[4], summarize(minutes), whole_note),
        Row(BGE_M3, *ROW_NAMES[5], peak_rss_mb_self(), note="model + parsing + embedding"),
    ]

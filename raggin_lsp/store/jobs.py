"""The write jobs behind :class:`~raggin_lsp.store.index.DocsIndex`: embed and store a
version's sections, or store points embedded elsewhere (an export, another index).

Content addressing: a point's id is its section's content hash, so a section unchanged
between releases is embedded once and lists every version in its ``versions`` payload
(:mod:`raggin_lsp.store.membership`). A killed job leaves its points behind, unlisted;
the next run finds them by id and does not embed them again.
"""

import time
from collections.abc import Callable, Iterable, Iterator, Sequence

from raggin_lsp.corpus.model import Section
from raggin_lsp.corpus.reading_order import value_order
from raggin_lsp.embed.base import Embedder, Embedding, LexicalEmbedder, SparseVector
from raggin_lsp.embed.vector_cache import VectorCache, text_key
from raggin_lsp.store import membership
from raggin_lsp.store.model import IndexInterrupted, IndexPhase, IndexProgress, IndexReport
from raggin_lsp.store.points import StoredPoint
from raggin_lsp.store.schema import (
    SPARSE,
    TEXT,
    code_to_embed,
    compose,
    dense_units,
    distinct_texts,
    point_id,
    point_vectors,
    section_payload,
)
from raggin_lsp.store.views import Backend

ProgressSink = Callable[[IndexProgress], None]
StopCheck = Callable[[], bool]
DenseGate = Callable[[], None]
# Seconds between two publications of the dense pass's progress (searches take in the
# sections whose vectors arrived since; each publication copies the shard once).
PUBLISH_SECONDS = 10.0
# Sections per batch of the lexical pass (BM25 only: cheap, so large batches).
_LEXICAL_BATCH = 512
# Sections handed to the embedder at once in the dense pass. The embedder sorts them by
# length before batching, so more at once means less padding (light profile, batch 8:
# 19% of the tokens it ran were padding with 16 sections, 7% with 64); the dense vectors
# are published by time (publish_seconds), not per slice.
DENSE_BATCH_SECTIONS = 64
_NO_SPARSE = SparseVector(indices=(), values=())  # point_vectors then leaves SPARSE out


def index_sections(
    backend: Backend,
    version: str,
    sections: Sequence[Section],
    embedder: Embedder,
    *,
    progress: ProgressSink | None,
    should_stop: StopCheck | None,
    batch_size: int,
    publish_seconds: float,
    dense_gate: DenseGate | None,
    vector_cache: VectorCache | None = None,
) -> IndexReport:
    """Store ``sections`` as ``version``, embedding only what is not stored yet (as
    :meth:`~raggin_lsp.store.index.DocsIndex.index_version` describes); texts whose
    vectors ``vector_cache`` holds are not embedded again."""
    started = time.monotonic()
    unique = _unique_sections(sections)
    total = len(unique)
    lexical_first = isinstance(embedder, LexicalEmbedder)
    with backend.writing() as view:
        entry = membership.mark_started(view, version, total)
        existing = view.points.versions_of(list(unique))
        membership.attach(view, version, existing)
        new = [(pid, section) for pid, section in unique.items() if pid not in existing]
        stored = set(existing)
        if lexical_first and not entry.lexical:
            assert isinstance(embedder, LexicalEmbedder)
            tracker = _Tracker(version, total, len(existing), started, progress, "lexical")
            tracker.report(0)
            for start in range(0, len(new), _LEXICAL_BATCH):
                _stop_if_asked(should_stop, version, tracker, total, lexical=False)
                chunk = new[start : start + _LEXICAL_BATCH]
                # Durable through Edge's write-ahead log; one checkpoint at the end.
                view.points.upsert(_lexical_points(chunk, version, embedder))
                stored.update(pid for pid, _section in chunk)
                tracker.report(len(chunk))
            membership.detach_stale(view, version, set(unique))
            view.checkpoint()
        lacking = set(view.points.lacking(version, TEXT)) & set(unique)
        todo = value_order([s for pid, s in unique.items() if pid in lacking or pid not in stored])
        tracker = _Tracker(version, total, total - len(todo), started, progress, "dense")
        tracker.searchable = lexical_first
        if lexical_first:
            membership.mark_lexical(view, version, total, tracker.done, entry.started_at)
            view.publish()
        tracker.report(0)
        published = time.monotonic()
        embedding = _Embedding(embedder, vector_cache, sparse=not lexical_first)
        for start in range(0, len(todo), max(1, batch_size)):
            _stop_if_asked(should_stop, version, tracker, total, lexical=lexical_first)
            if dense_gate is not None:
                dense_gate()
            batch = todo[start : start + batch_size]
            points = embedding.points(batch, version)
            view.points.set_vectors([p for p in points if p.id in stored])
            view.points.upsert([p for p in points if p.id not in stored])
            view.checkpoint()
            tracker.report(len(batch))
            if lexical_first and time.monotonic() - published >= publish_seconds:
                membership.mark_lexical(view, version, total, tracker.done, entry.started_at)
                view.publish()
                published = time.monotonic()
        membership.finish(view, version, set(unique))
    return IndexReport(
        version=version,
        sections_total=total,
        embedded=len(todo),
        reused=total - len(todo),
        seconds=time.monotonic() - started,
        texts_embedded=embedding.embedded,
        texts_total=len(distinct_texts(unique.values(), embedder.spec)),
    )


def store_points(
    backend: Backend,
    version: str,
    sections: int,
    points: Iterable[StoredPoint],
    *,
    progress: ProgressSink | None,
    should_stop: StopCheck | None,
    batch_size: int,
    source: str,
) -> IndexReport:
    """Store already-embedded points as ``version`` (import, push to a server)."""
    started = time.monotonic()
    with backend.writing() as view:
        membership.mark_started(view, version, sections)
        tracker = _Tracker(version, sections, 0, started, progress)
        seen: set[str] = set()
        embedded = reused = 0
        for batch in _batched(points, max(1, batch_size)):
            if should_stop is not None and should_stop():
                raise IndexInterrupted(
                    f"Importing Next.js {version} from {source} was stopped; run the "
                    "same command again to finish it."
                )
            existing = view.points.versions_of([point.id for point in batch])
            membership.attach(view, version, existing)
            fresh = [
                StoredPoint(point.id, point.vectors, {**point.payload, "versions": [version]})
                for point in batch
                if point.id not in existing
            ]
            view.points.upsert(fresh)
            view.checkpoint()
            seen.update(point.id for point in batch)
            embedded += len(fresh)
            reused += len(batch) - len(fresh)
            tracker.reused = reused
            tracker.report(len(fresh))
        membership.finish(view, version, seen)
    return IndexReport(
        version=version,
        sections_total=len(seen),
        embedded=embedded,
        reused=reused,
        seconds=time.monotonic() - started,
    )


def _stop_if_asked(
    should_stop: StopCheck | None, version: str, tracker: "_Tracker", total: int, *, lexical: bool
) -> None:
    if should_stop is None or not should_stop():
        return
    if lexical:
        raise IndexInterrupted(
            f"Indexing Next.js {version} was stopped with its dense vectors "
            f"{100 * tracker.done // max(1, total)}% done; it is searchable lexically "
            f"meanwhile. Nothing is lost: run `raggin-lsp index {version}` again to finish it."
        )
    raise IndexInterrupted(
        f"Indexing Next.js {version} was stopped after {tracker.done} of "
        f"{total} sections. Nothing is lost: run `raggin-lsp index "
        f"{version}` again to finish it."
    )


class _Tracker:
    """Turns batch completions into :class:`IndexProgress` with an ETA from the embed rate."""

    def __init__(
        self,
        version: str,
        total: int,
        reused: int,
        started: float,
        sink: ProgressSink | None,
        phase: IndexPhase = "dense",
    ) -> None:
        self.version, self.total, self.reused = version, total, reused
        self.phase: IndexPhase = phase
        self.searchable = False
        self.embedded = 0
        self.started = started
        self.sink = sink
        self._work_started = time.monotonic()

    @property
    def done(self) -> int:
        return self.embedded + self.reused

    def report(self, embedded_now: int) -> None:
        self.embedded += embedded_now
        if self.sink is None:
            return
        now = time.monotonic()
        remaining = max(0, self.total - self.done)
        work = now - self._work_started
        eta = remaining * work / self.embedded if self.embedded else None
        if remaining == 0:
            eta = 0.0
        self.sink(
            IndexProgress(
                version=self.version,
                done=self.done,
                total=self.total,
                embedded=self.embedded,
                reused=self.reused,
                elapsed_seconds=now - self.started,
                eta_seconds=eta,
                phase=self.phase,
                searchable=self.searchable,
            )
        )


def _unique_sections(sections: Iterable[Section]) -> dict[str, Section]:
    unique: dict[str, Section] = {}
    for section in sections:
        unique.setdefault(point_id(section), section)
    return unique


class _Embedding:
    """The dense pass's model work: texts looked up in the vector cache first.

    With ``sparse`` false (a lexical profile) the points carry only their dense vectors:
    the lexical pass stored every sparse vector already, and ``set_vectors`` keeps it.
    """

    def __init__(self, embedder: Embedder, cache: VectorCache | None, *, sparse: bool) -> None:
        if sparse and embedder.spec.heading_weight is not None:
            # A section's sparse vector needs its whole text, which paragraphs do not give.
            name = embedder.spec.name
            raise TypeError(f"paragraph vectors need a lexical profile, not {name}")
        self.embedder = embedder
        self.cache = cache
        self.sparse = sparse
        self._embedded: set[bytes] = set()  # keys of the distinct texts the model ran on

    @property
    def embedded(self) -> int:
        return len(self._embedded)

    def points(self, batch: Sequence[Section], version: str) -> list[StoredPoint]:
        spec = self.embedder.spec
        units = [dense_units(section, spec) for section in batch]
        codes = [[snippet.code for snippet in code_to_embed(section)] for section in batch]
        texts = list(dict.fromkeys(text for group in (*units, *codes) for text in group))
        known = self.cache.get(texts) if self.cache is not None else {}
        missing = [text for text in texts if text not in known]
        if missing:
            fresh = dict(zip(missing, self.embedder.embed_documents(missing), strict=True))
            if self.cache is not None:
                self.cache.put(fresh)
            known.update(fresh)
        self._embedded.update(text_key(text) for text in missing)
        points = []
        for section, own, code in zip(batch, units, codes, strict=True):
            vectors = [known[text] for text in own]
            dense = compose(spec, own, vectors, self.embedder.count_tokens)
            text = Embedding(dense, vectors[0].sparse if self.sparse else _NO_SPARSE)
            points.append(
                StoredPoint(
                    id=point_id(section),
                    vectors=point_vectors(text, [known[snippet] for snippet in code]),
                    payload=section_payload(section, [version]),
                )
            )
        return points


def _lexical_points(
    batch: Sequence[tuple[str, Section]], version: str, embedder: LexicalEmbedder
) -> list[StoredPoint]:
    """Sections (with their point ids) with their sparse vector only: no neural model."""
    sparse = embedder.embed_sparse([section.embedding_text() for _pid, section in batch])
    return [
        StoredPoint(
            id=pid,
            vectors={SPARSE: vector} if vector.indices else {},
            payload=section_payload(section, [version]),
        )
        for (pid, section), vector in zip(batch, sparse, strict=True)
    ]


def _batched(items: Iterable[StoredPoint], size: int) -> Iterator[list[StoredPoint]]:
    batch: list[StoredPoint] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch

"""Hybrid search over one docs version: prefetch per modality, fuse, describe each hit.

Modalities are the named vectors of a section: ``sparse`` (lexical), ``text`` (dense view
of the prose) and ``code`` (mean of the section's snippet vectors, queried only when the
caller passes a code snippet). Strategies:

* ``rrf`` (default) and ``dbsf``: one Query API call, prefetches fused inside Qdrant;
* ``weighted``: RAGGIN's weighted sum of arctan-normalised scores
  (:mod:`raggin_lsp.retrieve.fusion`), computed here from the per-modality queries;
* ``sparse`` and ``dense``: one modality alone (the evaluation compares them).

Router filter: asking for ``app`` or ``pages`` also admits ``architecture`` and
``community`` pages, which apply to both routers.
"""

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from raggin_lsp.corpus.urls import absolute_links, site_url
from raggin_lsp.embed.base import Embedder, Embedding
from raggin_lsp.retrieve.fusion import DEFAULT_WEIGHTS, weighted_fusion
from raggin_lsp.retrieve.model import SearchResult
from raggin_lsp.retrieve.strategies import (
    DEFAULT_FUSION,
    STRATEGIES,
    Strategy,
)
from raggin_lsp.store.index import DocsIndex
from raggin_lsp.store.points import FusionMethod, Hit, QueryVector
from raggin_lsp.store.schema import CODE, SPARSE, TEXT, section_from_payload

# Routers whose pages hold for both the App Router and the Pages Router.
SHARED_ROUTERS = ("architecture", "community")
# Candidates each modality contributes to fusion, per result asked for.
_CANDIDATES_PER_RESULT = 4
_MIN_CANDIDATES = 20
# With one_per_page, sections fetched per result before keeping one per page.
_PAGE_OVERFETCH = 4


def search(
    index: DocsIndex,
    embedder: Embedder,
    query: str,
    version: str,
    *,
    router: str | None = None,
    code: str | None = None,
    top_k: int = 5,
    fusion: Strategy = DEFAULT_FUSION,
    one_per_page: bool = False,
    latest_major: int | None = None,
) -> list[SearchResult]:
    """The ``top_k`` best sections of ``version`` for ``query`` (and ``code``, if given).

    Raises ``NotIndexedError`` when ``version`` is not completely indexed.
    ``latest_major`` decides the form of nextjs.org links (default: the newest major
    among the index's complete versions).
    """
    if fusion not in STRATEGIES:
        raise ValueError(f"unknown fusion {fusion!r}; choose one of {', '.join(STRATEGIES)}")
    index.require_version(version)
    if top_k <= 0:
        return []
    limit = top_k * _PAGE_OVERFETCH if one_per_page else top_k
    candidates = max(limit * _CANDIDATES_PER_RESULT, _MIN_CANDIDATES)
    queries = _modality_queries(embedder.embed_query(query), embedder, code, fusion)
    if not queries:
        return []

    routers = allowed_routers(router)
    if fusion in ("rrf", "dbsf"):
        method: FusionMethod = "rrf" if fusion == "rrf" else "dbsf"
        hits = index.fuse(method, queries, version, routers, limit, candidates)
        scores = _scores_of(index, queries, version, routers, [hit.id for hit in hits])
    elif fusion == "weighted":
        hits, scores = _weighted(index, queries, version, routers, limit, candidates)
    else:
        ((name, vector),) = queries.items()
        hits = index.rank(name, vector, version, routers, limit)
        scores = {hit.id: {name: hit.score} for hit in hits}

    major = latest_major if latest_major is not None else index.latest_major()
    results = [
        _result(hit.payload, version, hit.score, scores.get(hit.id, {}), major) for hit in hits
    ]
    if one_per_page:
        results = best_per_page(results)
    return results[:top_k]


def allowed_routers(router: str | None) -> tuple[str, ...] | None:
    if router is None:
        return None
    if router in ("app", "pages"):
        return (router, *SHARED_ROUTERS)
    return (router,)


def best_per_page(results: Sequence[SearchResult]) -> list[SearchResult]:
    """Keep the first (best) section of each page, in order."""
    seen: set[str] = set()
    kept = []
    for result in results:
        if result.url_path not in seen:
            seen.add(result.url_path)
            kept.append(result)
    return kept


def _modality_queries(
    question: Embedding, embedder: Embedder, code: str | None, fusion: Strategy
) -> dict[str, QueryVector]:
    if fusion == "dense":
        return {TEXT: question.dense}
    queries: dict[str, QueryVector] = {}
    if question.sparse.indices:
        queries[SPARSE] = question.sparse
    if fusion == "sparse":
        return queries  # empty when no term of the question is known: no lexical match
    queries[TEXT] = question.dense
    if code and code.strip():
        queries[CODE] = embedder.embed_query(code).dense
    return queries


def _scores_of(
    index: DocsIndex,
    queries: Mapping[str, QueryVector],
    version: str,
    routers: Sequence[str] | None,
    ids: Sequence[str],
) -> dict[str, dict[str, float]]:
    """Raw per-modality scores of the fused hits: the same queries, restricted to them."""
    scores: dict[str, dict[str, float]] = {}
    if not ids:
        return scores
    for name, vector in queries.items():
        for hit in index.rank(name, vector, version, routers, len(ids), only=ids):
            scores.setdefault(hit.id, {})[name] = hit.score
    return scores


def _weighted(
    index: DocsIndex,
    queries: Mapping[str, QueryVector],
    version: str,
    routers: Sequence[str] | None,
    limit: int,
    candidates: int,
) -> tuple[list[Hit], dict[str, dict[str, float]]]:
    by_id: dict[str, Hit] = {}
    per_modality: dict[str, dict[str, float]] = {}
    scores: dict[str, dict[str, float]] = {}
    for name, vector in queries.items():
        per_modality[name] = {}
        for hit in index.rank(name, vector, version, routers, candidates):
            by_id.setdefault(hit.id, hit)
            per_modality[name][hit.id] = hit.score
            scores.setdefault(hit.id, {})[name] = hit.score
    fused = weighted_fusion(per_modality, DEFAULT_WEIGHTS)[:limit]
    return [replace(by_id[key], score=score) for key, score in fused], scores


def _result(
    payload: Mapping[str, Any],
    version: str,
    score: float,
    scores: dict[str, float],
    latest_major: int | None,
) -> SearchResult:
    section = section_from_payload(dict(payload), version)
    url = site_url(section.url_path, version, latest_major)
    return SearchResult(
        url=f"{url}#{section.anchor}" if section.anchor else url,
        url_path=section.url_path,
        anchor=section.anchor,
        version=version,
        title=section.title,
        heading_path=section.heading_path,
        text=absolute_links(section.text, version, latest_major),
        code=section.code,
        router=section.router,
        tag=section.tag,
        score=score,
        scores=dict(scores),
    )

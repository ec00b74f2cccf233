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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from raggin_lsp.corpus.urls import absolute_links, linked_pages, site_url
from raggin_lsp.embed.base import Embedder, Embedding
from raggin_lsp.retrieve.docsmap import DocsMap, build_docs_map
from raggin_lsp.retrieve.fusion import DEFAULT_WEIGHTS, weighted_fusion
from raggin_lsp.retrieve.model import Reranker, SearchResult
from raggin_lsp.retrieve.query import QueryAnalysis, analyze, find_identifiers, implied_router
from raggin_lsp.retrieve.stages import DEFAULT_STAGE_WEIGHTS, DEFAULT_STAGES, Stages, StageWeights
from raggin_lsp.retrieve.strategies import (
    DEFAULT_FUSION,
    STRATEGIES,
    Strategy,
)
from raggin_lsp.store.index import DocsIndex
from raggin_lsp.store.points import FusionMethod, Hit, QueryVector
from raggin_lsp.store.schema import CODE, SPARSE, TEXT, section_from_payload

if TYPE_CHECKING:
    from raggin_lsp.embed.base import DenseVector

    CodeEmbedder = Callable[[str], DenseVector]

# The router the docs present first and recommend, preferred when nothing says which.
DEFAULT_ROUTER = "app"
# Routers whose pages hold for both the App Router and the Pages Router.
SHARED_ROUTERS = ("architecture", "community")
# Candidates each modality contributes to fusion: a fixed pool, larger than any result
# list asked for, because DBSF normalises each modality over it. A pool growing with
# top_k made the first result depend on how many were asked for (the server's default
# 5 fused 60 candidates, the eval's 10 fused 200). 200 was chosen on tune (16.4.6 /
# 16.2.0 P@1 with pools of 60: 0.709 / 0.707, 120: 0.704 / 0.716, 200: 0.714 / 0.716,
# 300: 0.723 / 0.712, 500: 0.718 / 0.712; MRR@10 0.797 / 0.800 at 200, 0.801 / 0.797
# at 300).
_CANDIDATES = 200
# Fused sections the page-level stages re-score, whatever top_k asks for: they normalise
# scores over this pool, so a longer list (``search --top-k 30``) would move its first
# results (tune P@1 16.4.6 / 16.2.0 with pools of 40: 0.732 / 0.721, 80: 0.723 / 0.707,
# 160: 0.714 / 0.702). Sections beyond it follow in fused order.
_FUSED = 40
# With one_per_page, sections fetched per result before keeping one per page.
_PAGE_OVERFETCH = 4
# Extra results fetched so that collapsing App/Pages twins still fills top_k.
_TWIN_ROOM = 10
_SINGLE = ("sparse", "dense")
# Marks, in a hit's scores, a page added by a stage rather than found by fusion.
_ADDED = "added"
# Page outlines matched per question for the page-level signal.
_OUTLINES = 20
# Where the API reference pages live (what ``linked_reference`` lifts).
_API_SEGMENT = "/api-reference/"


def search(
    index: DocsIndex,
    embedder: Embedder,
    query: str,
    version: str,
    *,
    router: str | None = None,
    code: str | None = None,
    embed_code: "CodeEmbedder | None" = None,
    top_k: int = 5,
    fusion: Strategy = DEFAULT_FUSION,
    one_per_page: bool = False,
    latest_major: int | None = None,
    stages: Stages = DEFAULT_STAGES,
    weights: StageWeights = DEFAULT_STAGE_WEIGHTS,
    docs_map: DocsMap | None = None,
    reranker: Reranker | None = None,
    hypothetical: str | None = None,
) -> list[SearchResult]:
    """The ``top_k`` best sections of ``version`` for ``query`` (and ``code``, if given).

    Raises ``NotIndexedError`` when ``version`` is not searchable yet. A version whose
    dense vectors are still being added is searched all the same: the dense prefetches
    find only the sections whose vectors arrived, the sparse one finds every section.
    ``router`` (the project's) filters; without it, the router the question implies is
    preferred (``stages.infer_router``). ``docs_map`` (what the version's docs say about
    their APIs, :mod:`.docsmap`) is built from the index when a stage needs it and none
    is given. ``latest_major`` decides the form of nextjs.org links (default: the newest
    major among the index's complete versions). The stages that need a model beyond the
    embedder act only when the caller passes what they need: ``stages.rerank`` a
    ``reranker``, ``stages.hyde`` the ``hypothetical`` passage a local LLM wrote.
    ``embed_code`` gives ``code`` its dense vector (default: the embedder's query vector;
    the Assistant keeps the vectors of open files, embedded before the question came).
    """
    if fusion not in STRATEGIES:
        raise ValueError(f"unknown fusion {fusion!r}; choose one of {', '.join(STRATEGIES)}")
    index.require_version(version, partial=True)
    if top_k <= 0:
        return []
    analysis = analyze(query) if stages.clean_query else plain_query(query)
    if stages.needs_docs_map and docs_map is None:
        docs_map = build_docs_map(version, index.payloads_of(version, partial=True))
    routed = _routed_pages(analysis, docs_map, stages)
    new_names = docs_map.new_names(analysis.identifiers) if docs_map and stages.old_names else []

    limit = max(top_k * _PAGE_OVERFETCH if one_per_page else top_k, _FUSED)
    limit += _TWIN_ROOM if stages.collapse_twins else 0
    candidates = max(limit, _CANDIDATES)
    main = _queries_for(embedder, analysis.focus, analysis.text, new_names, fusion)
    if code and code.strip() and fusion not in _SINGLE:
        main[CODE] = (embed_code or _dense_query_of(embedder))(code)
    if not main:
        return []
    parts = [
        _queries_for(embedder, part, part, [], fusion)
        for part in (analysis.parts if stages.sub_queries and fusion not in _SINGLE else ())
    ]
    if stages.hyde and hypothetical and hypothetical.strip() and fusion not in _SINGLE:
        # HyDE: the imagined answer is searched like one more part of the question.
        parts.append(_queries_for(embedder, hypothetical, hypothetical, [], fusion))
    routers = allowed_routers(router)
    hits, scores = _ranked(
        index, fusion, main, [p for p in parts if p], version, routers, limit, candidates, weights
    )
    pool_size = _FUSED + (_TWIN_ROOM if stages.collapse_twins else 0)
    pool, tail = hits[:pool_size], hits[pool_size:]
    outline = _outline_scores(index, fusion, main, version, routers, candidates, stages)
    cited = _cited_references(pool, weights) if stages.linked_reference else {}
    wanted = [
        *routed,
        *list(outline)[: weights.page_candidates],
        *list(cited)[: weights.link_candidates],
    ]
    if wanted:
        pool, scores = _with_routed_pages(
            index, pool, scores, main, wanted, version, routers, candidates
        )
    preferred = router or (analysis.router if stages.infer_router else None)
    in_pool = {hit.id for hit in pool}
    tail = [hit for hit in tail if hit.id not in in_pool]
    hits = _rescored(
        pool, scores, routed, outline, cited, docs_map, preferred, stages, weights, tail
    )
    if stages.rerank and reranker is not None:
        hits = _reranked(hits, scores, analysis.text, reranker, version, weights)

    major = latest_major if latest_major is not None else index.latest_major()
    info = index.version_info(version)
    stage = info.stage if info is not None else "hybrid"
    results = [
        replace(
            _result(hit.payload, version, hit.score, scores.get(hit.id, {}), major),
            index_stage=stage,
            profile=index.spec.name,
        )
        for hit in hits
    ]
    if stages.collapse_twins and docs_map is not None:
        # Nothing says which router: the docs' own default (nextjs.org/docs opens on it).
        results = collapse_twins(results, docs_map, preferred or DEFAULT_ROUTER)
    if one_per_page:
        results = best_per_page(results)
    return results[:top_k]


def plain_query(query: str) -> QueryAnalysis:
    """The question as it is: no cleaning, no sub-queries (identifiers still found)."""
    text = query.strip()
    return QueryAnalysis(text, text, text, (), find_identifiers(text), implied_router(text))


def _routed_pages(analysis: QueryAnalysis, docs_map: DocsMap | None, stages: Stages) -> list[str]:
    if docs_map is None or not (stages.api_routing or stages.old_names):
        return []
    identifiers = analysis.identifiers
    if not stages.api_routing:  # old names only
        return [
            page
            for page in docs_map.pages_for(identifiers, old_names=True)
            if page not in docs_map.pages_for(identifiers, old_names=False)
        ]
    return docs_map.pages_for(identifiers, old_names=stages.old_names)


def _queries_for(
    embedder: Embedder,
    focus: str,
    text: str,
    extra_terms: Sequence[str],
    fusion: Strategy,
) -> dict[str, QueryVector]:
    """Named-vector queries: the dense one from ``focus``, the sparse one from ``text``."""
    lexical = " ".join([text, *extra_terms])
    embedding = embedder.embed_query(focus, sparse_text=lexical)
    return _modality_queries(embedding, fusion)


def _dense_query_of(embedder: Embedder) -> "CodeEmbedder":
    return lambda text: embedder.embed_query(text).dense


def _ranked(
    index: DocsIndex,
    fusion: Strategy,
    main: Mapping[str, QueryVector],
    parts: Sequence[Mapping[str, QueryVector]],
    version: str,
    routers: Sequence[str] | None,
    limit: int,
    candidates: int,
    weights: StageWeights,
) -> tuple[list[Hit], dict[str, dict[str, float]]]:
    """Candidates fused per ``fusion``; sub-queries join with ``weights.part_weight``."""
    if fusion in ("rrf", "dbsf"):
        method: FusionMethod = "rrf" if fusion == "rrf" else "dbsf"
        prefetches = [*main.items(), *(item for part in parts for item in part.items())]
        share = [1.0] * len(main) + [weights.part_weight] * (len(prefetches) - len(main))
        hits = index.fuse(
            method,
            prefetches,
            version,
            routers,
            limit,
            candidates,
            weights=share if method == "rrf" and parts else None,
        )
        return hits, _scores_of(index, main, version, routers, [hit.id for hit in hits])
    if fusion == "weighted":
        hits, scores = _weighted(index, main, version, routers, limit, candidates)
        if not parts:
            return hits, scores
        fused = {hit.id: hit.score for hit in hits}
        by_id = {hit.id: hit for hit in hits}
        for part in parts:
            for hit in _weighted(index, part, version, routers, limit, candidates)[0]:
                fused[hit.id] = fused.get(hit.id, 0.0) + weights.part_weight * hit.score
                by_id.setdefault(hit.id, hit)
        ranked = sorted(fused.items(), key=lambda item: -item[1])[:limit]
        return [replace(by_id[key], score=score) for key, score in ranked], scores
    ((name, vector),) = main.items()
    hits = index.rank(name, vector, version, routers, limit)
    return hits, {hit.id: {name: hit.score} for hit in hits}


def _outline_scores(
    index: DocsIndex,
    fusion: Strategy,
    main: Mapping[str, QueryVector],
    version: str,
    routers: Sequence[str] | None,
    candidates: int,
    stages: Stages,
) -> dict[str, float]:
    """How well each page's outline point matches (best first, normalised to 0..1)."""
    if not stages.page_signal:
        return {}
    method: FusionMethod = "rrf" if fusion == "rrf" else "dbsf"
    hits = index.fuse(method, main, version, routers, _OUTLINES, candidates, summaries=True)
    if not hits:
        return {}
    top, low = hits[0].score, hits[-1].score
    span = top - low if top > low else 1.0
    return {str(hit.payload.get("url_path")): (hit.score - low) / span for hit in hits}


def _cited_references(hits: Sequence[Hit], weights: StageWeights) -> dict[str, float]:
    """API reference pages the best candidates link to, scored by the best one citing them.

    Guides and getting-started pages explain a task and link each API they use to its
    reference page, which is often the page a question about that task wants. A page's
    vote is the normalised fused score (0..1) of the best of the ``weights.link_sources``
    candidates linking to it; most-cited first.
    """
    fused = [hit.score for hit in hits]
    if not fused:
        return {}
    top, floor = max(fused), min(fused)
    span = top - floor if top > floor else 1.0
    votes: dict[str, float] = {}
    for hit in hits[: weights.link_sources]:
        own = str(hit.payload.get("url_path"))
        for page in linked_pages(str(hit.payload.get("text", ""))):
            if page != own and _API_SEGMENT in page:
                votes[page] = max(votes.get(page, 0.0), (hit.score - floor) / span)
    return dict(sorted(votes.items(), key=lambda item: -item[1]))


def _with_routed_pages(
    index: DocsIndex,
    hits: list[Hit],
    scores: dict[str, dict[str, float]],
    main: Mapping[str, QueryVector],
    routed: Sequence[str],
    version: str,
    routers: Sequence[str] | None,
    candidates: int,
) -> tuple[list[Hit], dict[str, dict[str, float]]]:
    """Add the best section of each routed page the candidates lack (Qdrant ranks it)."""
    present = {str(hit.payload.get("url_path")) for hit in hits}
    missing = [page for page in routed if page not in present]
    if not missing:
        return hits, scores
    found = index.fuse("rrf", main, version, routers, len(missing) * 3, candidates, pages=missing)
    best: dict[str, Hit] = {}
    for hit in found:
        best.setdefault(str(hit.payload.get("url_path")), hit)
    extra = [replace(hit, score=0.0) for hit in best.values()]
    # Not among the fused candidates: no fused score of their own (see _rescored).
    scores = {**scores, **{hit.id: {_ADDED: 1.0} for hit in extra}}
    return [*hits, *extra], scores


def _rescored(
    hits: Sequence[Hit],
    scores: dict[str, dict[str, float]],
    routed: Sequence[str],
    outline: Mapping[str, float],
    cited: Mapping[str, float],
    docs_map: DocsMap | None,
    preferred: str | None,
    stages: Stages,
    weights: StageWeights,
    tail: Sequence[Hit] = (),
) -> list[Hit]:
    """Page-level signals on fused scores normalised over ``hits`` (the pool) to the best
    one, recorded in scores. The ``tail`` (fused candidates beyond the pool) follows, on
    the same scale and without signals, so it can never move the pool's order."""
    allowed = allowed_routers(preferred) if preferred else None
    signals = routed or outline or cited or allowed or (stages.hub_demotion and docs_map)
    if not hits or not signals:
        return [*hits, *tail]  # nothing to re-score: the fused order and scores stand
    fused = [hit.score for hit in hits if _ADDED not in scores.get(hit.id, {})] or [0.0]
    top, floor = max(fused), min(fused)
    span = top - floor if top > floor else 1.0
    routed_set = set(routed)
    rescored = []
    for hit in hits:
        page = str(hit.payload.get("url_path"))
        own = scores.setdefault(hit.id, {})
        value = 0.0 if _ADDED in own else (hit.score - floor) / span
        own["fused"] = hit.score
        if page in routed_set:
            value += weights.api_boost
            own["api"] = weights.api_boost
        if page in outline:
            value += weights.page_weight * outline[page]
            own["page"] = weights.page_weight * outline[page]
        if page in cited:
            value += weights.link_weight * cited[page]
            own["cited"] = weights.link_weight * cited[page]
        if stages.hub_demotion and docs_map is not None:
            hub = docs_map.hubness.get(page, 0.0)
            value *= 1.0 - weights.hub_penalty * hub
            own["hub"] = -weights.hub_penalty * hub
        if allowed is not None and str(hit.payload.get("router")) not in allowed:
            value *= 1.0 - weights.router_penalty
            own["router"] = -weights.router_penalty
        own["final"] = value
        rescored.append(replace(hit, score=value))
    below = []
    for hit in tail:  # below the pool's floor, so below every re-scored value (>= 0)
        value = min((hit.score - floor) / span, 0.0)
        scores.setdefault(hit.id, {}).update(fused=hit.score, final=value)
        below.append(replace(hit, score=value))
    return [*sorted(rescored, key=lambda hit: -hit.score), *below]


def _reranked(
    hits: Sequence[Hit],
    scores: dict[str, dict[str, float]],
    question: str,
    reranker: Reranker,
    version: str,
    weights: StageWeights,
) -> list[Hit]:
    """The best candidates re-ordered by a cross-encoder, blended with their scores so far.

    A candidate's final score is ``(1 - w) * score + w * top * r``, where ``r`` is its
    cross-encoder score min-max normalised over the candidates read and ``top`` the best
    score so far; candidates beyond those read count as ``r = 0``, so they stay below.
    """
    if not hits:
        return []
    read = list(hits[: weights.rerank_candidates])
    passages = [section_from_payload(dict(hit.payload), version).embedding_text() for hit in read]
    raw = reranker.score(question, passages)
    low, high = min(raw), max(raw)
    span = high - low if high > low else 1.0
    top, share = hits[0].score, weights.rerank_weight
    reranked = []
    for position, hit in enumerate(hits):
        value = (1 - share) * hit.score
        own = scores.setdefault(hit.id, {})
        if position < len(read):
            value += share * top * (raw[position] - low) / span
            own["rerank"] = raw[position]
        own["final"] = value
        reranked.append(replace(hit, score=value))
    return sorted(reranked, key=lambda hit: -hit.score)


def collapse_twins(
    results: Sequence[SearchResult], docs_map: DocsMap, preferred: str | None
) -> list[SearchResult]:
    """One page of each App/Pages twin pair among ``results``: the ``preferred`` router's,
    else the better ranked. It takes the place of the pair's best section, keeps its own
    other sections, and names its twin once in ``also``; the twin's sections are dropped.
    """
    present = {result.url_path: result for result in reversed(results)}  # page -> best
    kept_page: dict[str, str] = {}  # each page of a pair present -> the page kept
    for result in results:
        twin = docs_map.twins.get(result.url_path)
        if twin is None or twin not in present or result.url_path in kept_page:
            continue
        keep = twin if present[twin].router == preferred != result.router else result.url_path
        kept_page[result.url_path] = kept_page[twin] = keep
    collapsed: list[SearchResult] = []
    placed: set[str] = set()
    for result in results:
        kept = kept_page.get(result.url_path)
        if kept is None:
            collapsed.append(result)
        elif kept not in placed:  # the pair's first section: the kept page's best goes here
            placed.add(kept)
            best, dropped = present[kept], present[docs_map.twins[kept]]
            collapsed.append(replace(best, also=(*best.also, dropped.url.split("#")[0])))
        elif result.url_path == kept and result is not present[kept]:
            collapsed.append(result)
    return collapsed


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


def _modality_queries(question: Embedding, fusion: Strategy) -> dict[str, QueryVector]:
    if fusion == "dense":
        return {TEXT: question.dense}
    queries: dict[str, QueryVector] = {}
    if question.sparse.indices:
        queries[SPARSE] = question.sparse
    if fusion == "sparse":
        return queries  # empty when no term of the question is known: no lexical match
    queries[TEXT] = question.dense
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

"""Page-level retrieval metrics: Precision@K, Recall@K, MRR@10, nDCG@10 and latency.

Scoring is done on unique pages, because a user reads a page, not a chunk:

1. Every result and every gold entry is reduced to its page: the ``#anchor`` and a
   trailing ``/`` are dropped (:func:`page_of`).
2. The ranked results are deduplicated keeping the *first* occurrence of each page, so
   three chunks of the same page in a row count as one result at the rank of the first
   one and the pages behind them move up. Without this step a strategy that returns
   many chunks of one right page would get P@5 = 1.0 for a single relevant page.
3. Relevance is binary: a page is relevant when it is one of the question's gold pages.

Definitions on the deduplicated list ``pages`` and the gold set ``G``:

- ``P@K = |pages[:K] ∩ G| / K`` (K is the divisor even when fewer than K pages came back:
  an empty slot is a wasted slot).
- ``R@K = |pages[:K] ∩ G| / |G|``.
- ``Hit@K = 1`` when any gold page is among ``pages[:K]``, else 0 (``Hit@1 = P@1``).
- ``MRR@10 = 1 / rank`` of the first relevant page within the top 10, else 0.
- ``nDCG@10 = DCG / IDCG`` with ``DCG = Σ rel_i / log2(i + 1)`` over ranks ``i = 1..10`` and
  IDCG the DCG of ``min(|G|, 10)`` relevant pages at the top.

Set-level numbers are macro averages over questions (each question weighs the same).
Latency percentiles interpolate linearly between the closest ranks, as numpy's default.
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

K_VALUES: tuple[int, ...] = (1, 3, 5, 10)
HIT_VALUES: tuple[int, ...] = (5, 10)
RANK_CUTOFF = 10

# The order of the keys in every report; tests and dashboards rely on it.
METRIC_KEYS: tuple[str, ...] = (
    *(f"P@{k}" for k in K_VALUES),
    *(f"R@{k}" for k in K_VALUES),
    *(f"Hit@{k}" for k in HIT_VALUES),
    f"MRR@{RANK_CUTOFF}",
    f"nDCG@{RANK_CUTOFF}",
    "p50_ms",
    "p95_ms",
    "n",
)


def page_of(url_path: str) -> str:
    """``/docs/app/x#anchor`` -> ``/docs/app/x``; ``/docs/app/`` -> ``/docs/app``."""
    page = url_path.split("#", 1)[0].strip()
    if len(page) > 1:
        page = page.rstrip("/")
    return page


def unique_pages(url_paths: Iterable[str]) -> list[str]:
    """The distinct pages of a ranked result list, in order of first appearance."""
    seen: set[str] = set()
    pages: list[str] = []
    for url_path in url_paths:
        page = page_of(url_path)
        if page and page not in seen:
            seen.add(page)
            pages.append(page)
    return pages


@dataclass(frozen=True)
class QuestionScore:
    """The scores of one ranked result list against one question's gold pages."""

    precision: dict[int, float]
    recall: dict[int, float]
    mrr: float
    ndcg: float
    hit: dict[int, float] = field(default_factory=dict)


def score_ranking(ranked: Sequence[str], gold: Iterable[str]) -> QuestionScore:
    """Score a ranked list of url paths (anchors allowed, duplicates allowed)."""
    gold_pages = set(unique_pages(gold))
    if not gold_pages:
        raise ValueError("a question needs at least one gold page to be scored")
    pages = unique_pages(ranked)
    hits = [page in gold_pages for page in pages]

    precision = {k: sum(hits[:k]) / k for k in K_VALUES}
    recall = {k: sum(hits[:k]) / len(gold_pages) for k in K_VALUES}
    first_hit = next((rank for rank, hit in enumerate(hits[:RANK_CUTOFF], 1) if hit), None)
    mrr = 1.0 / first_hit if first_hit is not None else 0.0
    dcg = sum(1.0 / math.log2(rank + 1) for rank, hit in enumerate(hits[:RANK_CUTOFF], 1) if hit)
    ideal_hits = min(len(gold_pages), RANK_CUTOFF)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, ideal_hits + 1))
    hit = {k: float(any(hits[:k])) for k in HIT_VALUES}
    return QuestionScore(precision=precision, recall=recall, mrr=mrr, ndcg=dcg / ideal, hit=hit)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) with linear interpolation; 0.0 for no values."""
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile must be within 0..100, got {q}")
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    lower = math.floor(position)
    upper = math.ceil(position)
    fraction = position - lower
    return ordered[lower] + (ordered[upper] - ordered[lower]) * fraction


def aggregate(scores: Sequence[QuestionScore], latencies_ms: Sequence[float]) -> dict[str, float]:
    """Macro-averaged metrics plus latency percentiles, keyed and ordered as METRIC_KEYS."""
    n = len(scores)

    def mean(values: Iterable[float]) -> float:
        return sum(values) / n if n else 0.0

    result: dict[str, float] = {}
    for k in K_VALUES:
        result[f"P@{k}"] = mean(s.precision[k] for s in scores)
    for k in K_VALUES:
        result[f"R@{k}"] = mean(s.recall[k] for s in scores)
    for k in HIT_VALUES:
        result[f"Hit@{k}"] = mean(s.hit.get(k, 0.0) for s in scores)
    result[f"MRR@{RANK_CUTOFF}"] = mean(s.mrr for s in scores)
    result[f"nDCG@{RANK_CUTOFF}"] = mean(s.ndcg for s in scores)
    result["p50_ms"] = percentile(latencies_ms, 50)
    result["p95_ms"] = percentile(latencies_ms, 95)
    result["n"] = n
    return result

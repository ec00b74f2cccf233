"""Score fusion done in Python: RAGGIN's weighted sum of arctan-normalised scores.

RRF and DBSF run inside Qdrant (``FusionQuery``); this is the one strategy Qdrant has no
built-in for. Raw scores of different modalities live on different scales (cosine in
[-1, 1], BM25-style sparse scores unbounded), so each is squashed with
``2/pi * arctan(s)`` into (-1, 1) before the weighted sum. arctan keeps the order of the
scores and needs no statistics of the result list, unlike min-max or z-score
normalisation, which change meaning with how many candidates came back.
"""

import math
from collections.abc import Hashable, Mapping
from typing import TypeVar

# Our choice (RAGGIN's published weights were not available to us): the two text views
# count equally, the code view of the question helps but must not dominate because most
# sections have no code vector at all.
DEFAULT_WEIGHTS: Mapping[str, float] = {"text": 0.4, "sparse": 0.4, "code": 0.2}

Key = TypeVar("Key", bound=Hashable)


def arctan_normalise(score: float) -> float:
    return 2.0 / math.pi * math.atan(score)


def weighted_fusion(
    scores: Mapping[str, Mapping[Key, float]],
    weights: Mapping[str, float] = DEFAULT_WEIGHTS,
) -> list[tuple[Key, float]]:
    """Fuse per-modality raw scores into one ranking, best first.

    Only modalities present in ``scores`` take part and their weights are rescaled to sum
    to 1, so the fused score stays in (-1, 1) whether or not a code query was given. A
    candidate missing from a modality (not in its candidate list, or without that vector)
    contributes 0 for it. Ties keep the order of first appearance.
    """
    used = {name: weights.get(name, 0.0) for name in scores}
    total = sum(used.values())
    if total <= 0.0:
        raise ValueError(f"no positive weight among the modalities {sorted(scores)}")
    fused: dict[Key, float] = {}
    for name, by_key in scores.items():
        share = used[name] / total
        for key, raw in by_key.items():
            fused[key] = fused.get(key, 0.0) + share * arctan_normalise(raw)
    return sorted(fused.items(), key=lambda item: -item[1])

"""The ranking strategies retrieval offers, and the default the evaluation chose.

Kept apart from ``search.py`` (which imports qdrant-client, a second of start-up) so the
language server's settings and the CLI can name strategies without loading the index code.
"""

from typing import Literal, get_args

# One modality alone ("sparse", "dense") or a fusion of them: Qdrant's RRF and DBSF, or
# RAGGIN's weighted sum of arctan-normalised scores ("weighted").
Strategy = Literal["rrf", "dbsf", "weighted", "sparse", "dense"]
STRATEGIES: tuple[str, ...] = get_args(Strategy)

# `raggin-lsp eval --split tune` (clean and noisy questions, Next.js 16.4.6, light profile,
# no router given, every default stage on): DBSF with one section per page had the best
# P@1, MRR@10 and nDCG@10 of the strategies, and the lowest latency; see README.md.
DEFAULT_FUSION: Strategy = "dbsf"
DEFAULT_ONE_PER_PAGE = True

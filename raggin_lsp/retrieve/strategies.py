"""The ranking strategies retrieval offers, and the default the evaluation chose.

Kept apart from ``search.py`` (which imports qdrant-client, a second of start-up) so the
language server's settings and the CLI can name strategies without loading the index code.
"""

from typing import Literal, get_args

# One modality alone ("sparse", "dense") or a fusion of them: Qdrant's RRF and DBSF, or
# RAGGIN's weighted sum of arctan-normalised scores ("weighted").
Strategy = Literal["rrf", "dbsf", "weighted", "sparse", "dense"]
STRATEGIES: tuple[str, ...] = get_args(Strategy)

# `raggin-lsp eval` on corpus/eval/questions.yaml (211 questions, Next.js 16.2.0, light
# profile): weighted fusion with one section per page had the best nDCG@10 (0.732) and
# R@10 (0.908) of the ten strategies, at a third of RRF's latency; see README.md.
DEFAULT_FUSION: Strategy = "weighted"
DEFAULT_ONE_PER_PAGE = True

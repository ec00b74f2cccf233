"""Hybrid search over the index: prefetch per modality, then fusion."""

from raggin_lsp.retrieve.fusion import DEFAULT_WEIGHTS, arctan_normalise, weighted_fusion
from raggin_lsp.retrieve.model import SearchResult
from raggin_lsp.retrieve.search import STRATEGIES, Strategy, allowed_routers, search

__all__ = [
    "DEFAULT_WEIGHTS",
    "STRATEGIES",
    "SearchResult",
    "Strategy",
    "allowed_routers",
    "arctan_normalise",
    "search",
    "weighted_fusion",
]

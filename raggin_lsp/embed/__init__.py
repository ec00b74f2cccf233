"""Embedding profiles: texts to dense + sparse vectors through fastembed.

``get_profile_spec`` describes a profile without loading anything; ``load_embedder``
returns a ready :class:`~raggin_lsp.embed.base.Embedder` (blocking, may download).
"""

from raggin_lsp.embed.catalog import DEFAULT_PROFILE, PROFILES, Profile, get_profile_spec
from raggin_lsp.embed.loading import LoadProgress, load_embedder

__all__ = [
    "DEFAULT_PROFILE",
    "PROFILES",
    "LoadProgress",
    "Profile",
    "get_profile_spec",
    "load_embedder",
]

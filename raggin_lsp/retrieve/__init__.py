"""Hybrid search over the index: prefetch per modality, then fusion."""

"""Hybrid search over the index: prefetch per modality, then fusion.

Import from the modules (``search``, ``fusion``, ``strategies``, ``model``): this package
stays empty so that naming a strategy does not load qdrant-client.
"""

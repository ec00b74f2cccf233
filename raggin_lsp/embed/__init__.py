"""Embedding profiles: texts to dense + sparse vectors through fastembed."""

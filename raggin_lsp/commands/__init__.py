"""CLI command groups beyond the docs corpus: index, search, serve, demo, eval."""

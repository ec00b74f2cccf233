"""raggin-lsp: version-exact Next.js documentation answers inside any LSP editor."""

__version__ = "0.1.0"

"""raggin-lsp: version-exact Next.js documentation answers inside any LSP editor."""

DISTRIBUTION = "raggin-lsp"
# The one declaration of the version: pyproject.toml reads it (tool.setuptools.dynamic).
# A constant rather than importlib.metadata, whose scan of the installed distributions
# took ~80 ms of the language server's start on a busy machine.
__version__ = "0.1.0"


def package_version() -> str:
    """The package's version, as installed (pyproject.toml takes it from here)."""
    return __version__

"""raggin-lsp: version-exact Next.js documentation answers inside any LSP editor."""

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "raggin-lsp"


def package_version() -> str:
    """The installed distribution's version (pyproject.toml's), or a marker without one."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0.0.0+source"

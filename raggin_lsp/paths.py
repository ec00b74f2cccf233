"""Where raggin keeps downloads, models and the index.

Each location can be moved with an environment variable, which the tests use to work
in temporary folders and CI uses to share one download cache between runs.
"""

import os
from pathlib import Path


def cache_dir() -> Path:
    """Downloads that can always be fetched again (docs, models): ``~/.cache/raggin``."""
    override = os.environ.get("RAGGIN_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "raggin"


def data_dir() -> Path:
    """State that costs compute to rebuild (the embedded Qdrant index)."""
    override = os.environ.get("RAGGIN_DATA_DIR")
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "raggin"


def config_file() -> Path:
    """The user's own settings file: ``~/.config/raggin/config.yaml``."""
    override = os.environ.get("RAGGIN_CONFIG_FILE")
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "raggin" / "config.yaml"


def docs_cache_dir() -> Path:
    return cache_dir() / "docs"


def models_cache_dir() -> Path:
    return cache_dir() / "models"


def qdrant_dir() -> Path:
    return data_dir() / "qdrant"

"""Where the index lives: an embedded folder (the default) or a Qdrant server or cluster."""

from dataclasses import dataclass
from pathlib import Path

from raggin_lsp import paths


@dataclass(frozen=True)
class StoreSettings:
    """``url`` set means a Qdrant server or cluster; otherwise the embedded folder ``path``.

    ``shard_number`` and ``replication_factor`` only matter to a server: they are passed
    when a collection is created (an existing collection keeps its own).
    """

    path: Path | None = None
    url: str | None = None
    api_key: str | None = None
    shard_number: int = 1
    replication_factor: int = 1
    # How long a writer waits for another process's write job before giving up.
    lock_timeout_seconds: float = 600.0
    # An embedded write job stops, reporting a full disk, when less than this is free:
    # Edge writes through memory maps, and a map that cannot grow kills the process.
    min_free_bytes: int = 64 * 1024 * 1024

    @property
    def is_server(self) -> bool:
        return self.url is not None

    @property
    def folder(self) -> Path:
        return self.path if self.path is not None else paths.qdrant_dir()

    @property
    def location(self) -> str:
        """For people: the URL or the folder."""
        return self.url if self.url is not None else str(self.folder)

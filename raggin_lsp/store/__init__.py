"""The versioned, content-addressed Qdrant index of docs sections."""

from raggin_lsp.store.index import DocsIndex
from raggin_lsp.store.model import (
    CollectionStats,
    ExportFormatError,
    IndexBusyError,
    IndexInterrupted,
    IndexProgress,
    IndexReport,
    ProfileMismatchError,
    VersionInfo,
)
from raggin_lsp.store.settings import StoreSettings

__all__ = [
    "CollectionStats",
    "DocsIndex",
    "ExportFormatError",
    "IndexBusyError",
    "IndexInterrupted",
    "IndexProgress",
    "IndexReport",
    "ProfileMismatchError",
    "StoreSettings",
    "VersionInfo",
]

"""The versioned, content-addressed Qdrant index of docs sections."""

from raggin_lsp.store.index import DocsIndex
from raggin_lsp.store.model import (
    CollectionStats,
    ExportChecksumError,
    ExportFormatError,
    ExportVersionError,
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
    "ExportChecksumError",
    "ExportFormatError",
    "ExportVersionError",
    "IndexBusyError",
    "IndexInterrupted",
    "IndexProgress",
    "IndexReport",
    "ProfileMismatchError",
    "StoreSettings",
    "VersionInfo",
]

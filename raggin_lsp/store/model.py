"""What the index reports: progress, the outcome of a write job, statistics, and its errors."""

import time
from dataclasses import dataclass, field
from typing import Literal

from raggin_lsp.errors import RagginError


class IndexInterrupted(RagginError):
    """A write job stopped between two batches because it was asked to.

    Everything stored so far is kept; the version stays unlisted until a later run
    completes it (that run embeds only what is still missing).
    """


class IndexBusyError(RagginError):
    """Another process held the index's write lock for longer than we would wait."""


class ProfileMismatchError(RagginError):
    """An export file was made with another embedding profile or model."""


class ExportFormatError(RagginError):
    """A file given to import is not a raggin index export (or is damaged)."""


class ExportChecksumError(ExportFormatError):
    """An export's content does not match the sha256 it carries (changed or truncated)."""


class ExportVersionError(RagginError):
    """An export holds another Next.js version than the one asked for."""


# The two passes of an index job: "lexical" stores every section with its sparse (BM25)
# vector only, which needs no neural model and makes the version searchable within
# seconds; "dense" then adds the dense vectors, most valuable pages first.
IndexPhase = Literal["lexical", "dense"]


@dataclass(frozen=True)
class IndexProgress:
    version: str
    done: int  # sections handled in this phase (stored, or already stored before)
    total: int
    embedded: int
    reused: int
    elapsed_seconds: float
    eta_seconds: float | None  # None until there is a rate to extrapolate from
    phase: IndexPhase = "dense"
    searchable: bool = False  # the version answers searches already (lexically at least)


@dataclass(frozen=True)
class IndexReport:
    version: str
    sections_total: int
    embedded: int  # sections embedded and stored by this run
    reused: int  # sections already stored (another version, or an interrupted run)
    seconds: float
    # What the model ran on: of the version's distinct texts (paragraphs, headings, code),
    # those this run embedded (each counted once); the others were stored or in the vector
    # cache already.
    texts_embedded: int = 0
    texts_total: int = 0

    @property
    def texts_embedded_share(self) -> float:
        """The share of the version's texts that went through the model (0 when none)."""
        return self.texts_embedded / self.texts_total if self.texts_total else 0.0


@dataclass(frozen=True)
class VersionInfo:
    version: str
    complete: bool
    sections: int
    profile: str
    fingerprint: str
    started_at: float
    completed_at: float | None
    collection: str = ""
    lexical: bool = False  # every section stored with its sparse vector: searchable lexically
    dense: int = 0  # sections holding their dense vectors so far

    @property
    def searchable(self) -> bool:
        return self.complete or self.lexical

    @property
    def dense_percent(self) -> int:
        if self.complete:
            return 100
        return min(100, 100 * self.dense // self.sections) if self.sections else 0

    @property
    def stage(self) -> str:
        """How searches of this version are answered, as a person reads it:
        ``hybrid``, ``lexical only, dense 40%`` or ``not searchable yet``."""
        if self.complete:
            return "hybrid"
        if self.lexical:
            return f"lexical only, dense {self.dense_percent}%"
        return "not searchable yet"


@dataclass(frozen=True)
class EntryState:
    """What a write job records about a version in the manifest (both backends)."""

    complete: bool
    sections: int
    started_at: float
    lexical: bool = False
    dense: int = 0

    def info(self, version: str, profile: str, fingerprint: str, collection: str) -> VersionInfo:
        """The manifest entry saying this now (a complete version is complete now)."""
        return VersionInfo(
            version=version,
            complete=self.complete,
            sections=self.sections,
            profile=profile,
            fingerprint=fingerprint,
            started_at=self.started_at,
            completed_at=time.time() if self.complete else None,
            collection=collection,
            lexical=self.lexical,
            dense=self.sections if self.complete else self.dense,
        )


@dataclass(frozen=True)
class CollectionStats:
    collection: str
    points: int
    versions: dict[str, int] = field(default_factory=dict)  # complete versions -> sections
    incomplete: tuple[str, ...] = ()
    location: str = ""
    # How each incomplete version is searched: "lexical only, dense 40%", "not searchable yet"
    stages: dict[str, str] = field(default_factory=dict)


class IndexDamagedError(RagginError):
    """Files of the embedded index cannot be read (damaged, half-written or foreign)."""


class IndexWriteError(RagginError):
    """A write job failed (for example the disk is full); complete versions are unharmed.

    ``disk_full`` tells callers that freeing space is the fix, so they can point at what
    else of theirs takes room (the CLI names the docs download cache).
    """

    def __init__(self, message: str, *, disk_full: bool = False) -> None:
        super().__init__(message)
        self.disk_full = disk_full

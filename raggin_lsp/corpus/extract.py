"""Copying docs out of archives and folders, refusing anything that could escape.

Only Markdown files of the docs trees are taken, under caps on their number and total
size. An archive member with an absolute name or a ``..`` part is refused wherever it
is; a link or device among the selected members is refused too. Files are written only
below the destination folder, which the caller creates fresh inside the cache.
"""

import contextlib
import gzip
import json
import os
import shutil
import tarfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Literal

from raggin_lsp.errors import RagginError, UnsafeArchiveError

Layout = Literal["npm", "github", "any"]
DOC_SUFFIXES = (".md", ".mdx")
NPM_DOCS_PREFIX = ("package", "dist", "docs")
GITHUB_TREES = ("docs", "errors")
_MANIFEST_MAX_BYTES = 1 << 20


class MissingDocsError(RagginError):
    """An archive or folder holds no Next.js docs."""


@dataclass(frozen=True)
class Limits:
    """Caps on what is taken; generous for docs (a release has ~500 files, ~5 MB)."""

    max_total_bytes: int = 200 * 1024 * 1024
    max_files: int = 20_000


@dataclass
class ExtractReport:
    files: int = 0
    bytes: int = 0
    npm_version: str | None = None  # "version" in package/package.json, when seen
    top_folders: set[str] = field(default_factory=set)


def _safe_parts(name: str, archive: str) -> tuple[str, ...]:
    """The member name as path parts, refusing names that could leave the target."""
    if "\x00" in name or "\\" in name:
        raise UnsafeArchiveError(f"{archive} holds a member with a suspicious name: {name!r}.")
    path = PurePosixPath(name)
    if path.is_absolute():
        raise UnsafeArchiveError(f"{archive} holds a member with an absolute path: {name!r}.")
    parts = tuple(part for part in path.parts if part not in ("", "."))
    if ".." in parts:
        raise UnsafeArchiveError(f"{archive} holds a member that climbs out of it: {name!r}.")
    return parts


def select_member(parts: tuple[str, ...], layout: Layout) -> tuple[str, ...] | None:
    """Where a member goes in the cache entry (``docs/...`` or ``errors/...``), or None."""
    if layout in ("npm", "any") and parts[:3] == NPM_DOCS_PREFIX and len(parts) > 3:
        return ("docs", *parts[3:])
    if (
        layout in ("github", "any")
        and len(parts) > 2
        and parts[0] != "package"
        and parts[1] in GITHUB_TREES
    ):
        return parts[1:]
    return None


def _is_doc(parts: tuple[str, ...]) -> bool:
    return parts[-1].lower().endswith(DOC_SUFFIXES)


class _Budget:
    def __init__(self, limits: Limits, origin: str) -> None:
        self.limits = limits
        self.origin = origin
        self.files = 0
        self.bytes = 0

    def add_file(self, name: str) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise UnsafeArchiveError(
                f"{self.origin} holds more than {self.limits.max_files} docs files; "
                "refusing it as too large for a Next.js docs tree."
            )

    def add_bytes(self, count: int, name: str) -> None:
        self.bytes += count
        if self.bytes > self.limits.max_total_bytes:
            raise UnsafeArchiveError(
                f"{self.origin} unpacks to more than {self.limits.max_total_bytes:,} bytes of "
                f"docs (at {name!r}); refusing it as too large for a Next.js docs tree."
            )


def _copy_stream(source: IO[bytes], target: Path, budget: _Budget, member: tarfile.TarInfo) -> None:
    name = member.name
    try:
        sink = target.open("xb")
    except FileExistsError as error:
        raise UnsafeArchiveError(
            f"{budget.origin} holds the same docs file twice ({name!r}); refusing it."
        ) from error
    with sink:
        written = 0
        while chunk := source.read(1 << 16):
            budget.add_bytes(len(chunk), name)
            sink.write(chunk)
            written += len(chunk)
    if written != member.size:
        raise tarfile.ReadError(f"{name!r} ends after {written} of its {member.size} bytes")


@contextlib.contextmanager
def _open_tar(archive: Path) -> Iterator[tuple[tarfile.TarFile, Callable[[], None]]]:
    """Opens the archive in stream mode (one pass, no seeking) with a truncation check.

    tarfile quietly stops at a header cut short, so a truncated download could pass for
    a smaller archive. Reading a gzip stream to its end makes GzipFile check the trailer
    (length and CRC), which a cut-off or damaged download fails.
    """
    with archive.open("rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        if not gzipped:
            with tarfile.open(fileobj=raw, mode="r|") as tar:
                yield tar, lambda: None
            return
        with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:

            def finish() -> None:
                while unzipped.read(1 << 16):
                    pass

            with tarfile.open(fileobj=unzipped, mode="r|") as tar:
                yield tar, finish


def extract_docs(
    archive: Path, destination: Path, *, layout: Layout = "any", limits: Limits | None = None
) -> ExtractReport:
    """Extracts the docs trees of a (gzipped) tar archive into ``destination``.

    ``destination`` must be an empty or missing folder; on error it may hold partial
    content, which the caller discards. Raises :class:`UnsafeArchiveError` for hostile
    or oversized archives and :class:`MissingDocsError` when no docs are inside.
    """
    origin = f"The archive {archive.name}"
    budget = _Budget(limits or Limits(), origin)
    report = ExtractReport()
    destination.mkdir(parents=True, exist_ok=True)
    try:
        with _open_tar(archive) as (tar, finish):
            for member in tar:
                parts = _safe_parts(member.name, origin)
                if not parts:
                    continue
                report.top_folders.add(parts[0])
                if parts == ("package", "package.json") and member.isfile():
                    report.npm_version = _read_manifest_version(tar.extractfile(member), member)
                    continue
                selected = select_member(parts, layout)
                if selected is None or member.isdir():
                    continue
                if not member.isfile():
                    kind = "link" if member.issym() or member.islnk() else "special file"
                    raise UnsafeArchiveError(
                        f"{origin} holds a {kind} inside the docs: {member.name!r}. Refusing it."
                    )
                if not _is_doc(selected):
                    continue
                budget.add_file(member.name)
                if member.size > budget.limits.max_total_bytes:
                    budget.add_bytes(member.size, member.name)
                target = destination.joinpath(*selected)
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                if source is None:  # pragma: no cover - isfile() members always have data
                    continue
                _copy_stream(source, target, budget, member)
            finish()
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise UnsafeArchiveError(
            f"{origin} is corrupt or not a tar archive ({error}). Nothing was cached."
        ) from error
    report.files, report.bytes = budget.files, budget.bytes
    if report.files == 0:
        raise MissingDocsError(
            f"{origin} holds no Next.js docs (no Markdown under package/dist/docs/, "
            "<top>/docs/ or <top>/errors/)."
        )
    return report


def _read_manifest_version(source: IO[bytes] | None, member: tarfile.TarInfo) -> str | None:
    if source is None or member.size > _MANIFEST_MAX_BYTES:
        return None
    try:
        version = json.loads(source.read()).get("version")
    except (ValueError, AttributeError):
        return None
    return version if isinstance(version, str) else None


def copy_docs_tree(
    source: Path, destination: Path, *, limits: Limits | None = None, origin: str = ""
) -> int:
    """Copies the Markdown files below ``source`` into ``destination``; returns their count.

    Symbolic links inside the tree are skipped rather than followed, so the copy only
    ever reads the tree it was given.
    """
    budget = _Budget(limits or Limits(), origin or f"The folder {source}")
    destination.mkdir(parents=True, exist_ok=True)
    for folder, subfolders, files in os.walk(source, followlinks=False):
        here = Path(folder)
        subfolders[:] = sorted(name for name in subfolders if not (here / name).is_symlink())
        for name in sorted(files):
            path = here / name
            if path.is_symlink() or not name.lower().endswith(DOC_SUFFIXES):
                continue
            if not path.is_file():
                continue
            relative = path.relative_to(source)
            budget.add_file(str(relative))
            budget.add_bytes(path.stat().st_size, str(relative))
            target = destination / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target, follow_symlinks=False)
    return budget.files


def is_archive(path: Path) -> bool:
    return path.is_file() and tarfile.is_tarfile(path)

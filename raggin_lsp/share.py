"""Where a shared index comes from: a local export file, or a URL downloaded into the cache.

``raggin-lsp index VERSION --from FILE-or-URL`` imports an export made by
``raggin-lsp export`` instead of embedding. An ``http(s)://`` URL is streamed into a
temporary file under ``cache_dir()/imports`` (removed after the import, kept nowhere
else); a ``file://`` URL is read in place. What the file holds is checked by
:meth:`raggin_lsp.store.DocsIndex.import_file` before anything is written.
"""

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote, urlparse

from raggin_lsp.errors import RagginError
from raggin_lsp.paths import cache_dir

Progress = Callable[[int, int | None], None]

_DOWNLOAD_SUFFIX = ".raggin-export.part"
_STALE_SECONDS = 24 * 3600  # a download older than this belongs to a process that died


def imports_dir() -> Path:
    return cache_dir() / "imports"


def is_url(source: str) -> bool:
    return urlparse(source).scheme in ("http", "https", "file")


def is_export_source(source: str) -> bool:
    """A URL (always an export) or a local file that starts with an export header."""
    from raggin_lsp.store.transfer import is_export

    return is_url(source) or is_export(Path(source).expanduser())


@contextmanager
def export_file(source: str, *, progress: Progress | None = None) -> Iterator[Path]:
    """The local file of ``source``; a downloaded one is deleted when the block ends."""
    parsed = urlparse(source)
    if parsed.scheme == "file":
        if parsed.netloc not in ("", "localhost"):
            raise RagginError(f"{source} names another host; use a local path or http(s).")
        yield Path(unquote(parsed.path))
        return
    if parsed.scheme not in ("http", "https"):
        yield Path(source).expanduser()
        return
    from raggin_lsp.corpus.download import download  # httpx: paid only by downloads

    folder = imports_dir()
    folder.mkdir(parents=True, exist_ok=True)
    _sweep_stale(folder)
    handle, name = tempfile.mkstemp(suffix=_DOWNLOAD_SUFFIX, dir=folder)
    os.close(handle)  # download() reopens it by name
    target = Path(name)
    try:
        try:
            download(source, target, progress=progress, what="the index export")
        except OSError as error:  # e.g. a full disk; network errors arrive as RagginError
            raise RagginError(
                f"Could not save the download of {source} under {folder}: {error}. "
                "Nothing was imported; free some space (or set RAGGIN_CACHE_DIR) and retry."
            ) from error
        yield target
    finally:
        target.unlink(missing_ok=True)


def _sweep_stale(folder: Path) -> None:
    """Downloads left by a process that was killed (kill -9 skips our clean-up)."""
    now = time.time()
    for leftover in folder.glob(f"*{_DOWNLOAD_SUFFIX}"):
        try:
            if now - leftover.stat().st_mtime > _STALE_SECONDS:
                leftover.unlink()
        except OSError:
            continue

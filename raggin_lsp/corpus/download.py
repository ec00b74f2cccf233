"""Streaming downloads checked against the registry's Subresource Integrity string.

The bytes go straight to a file while being hashed, so a 40 MB tarball never sits in
memory, and a mismatch is found before anything is extracted from it.
"""

import base64
import hashlib
from collections.abc import Callable
from pathlib import Path

import httpx

from raggin_lsp.errors import IntegrityError, OfflineError, RagginError

Progress = Callable[[int, int | None], None]

DOWNLOAD_TIMEOUT = httpx.Timeout(60.0, connect=10.0)
CHUNK_BYTES = 1 << 16
_SRI_ALGORITHMS = ("sha512", "sha384", "sha256", "sha1")  # strongest first


def parse_integrity(integrity: str) -> tuple[str, bytes]:
    """The strongest ``(algorithm, digest)`` of an SRI string like ``sha512-<base64>``."""
    found: dict[str, bytes] = {}
    for token in integrity.split():
        algorithm, _, encoded = token.partition("-")
        encoded = encoded.split("?", 1)[0]  # SRI allows options after "?"
        if algorithm in _SRI_ALGORITHMS and encoded:
            try:
                found.setdefault(algorithm, base64.b64decode(encoded, validate=True))
            except ValueError:
                continue
    for algorithm in _SRI_ALGORITHMS:
        if algorithm in found:
            return algorithm, found[algorithm]
    raise IntegrityError(
        f"The registry published an integrity value raggin cannot read: {integrity!r}."
    )


def sri(algorithm: str, digest: bytes) -> str:
    return f"{algorithm}-{base64.b64encode(digest).decode('ascii')}"


def download(
    url: str,
    target: Path,
    *,
    integrity: str | None = None,
    progress: Progress | None = None,
    what: str = "the download",
) -> str:
    """Streams ``url`` into ``target`` and returns the SRI (sha512 unless told) of its bytes.

    Raises :class:`OfflineError` when the host cannot be reached or the transfer breaks,
    :class:`IntegrityError` when the bytes differ from ``integrity``. On any failure the
    partial file is removed.
    """
    algorithm, expected = parse_integrity(integrity) if integrity else ("sha512", None)
    digest = hashlib.new(algorithm)
    try:
        with httpx.stream("GET", url, timeout=DOWNLOAD_TIMEOUT, follow_redirects=True) as response:
            if response.status_code == 404:
                raise RagginError(f"{what} is not available: {url} answered 404 Not Found.")
            if response.status_code != 200:
                raise OfflineError(
                    f"Could not download {what}: {url} answered {response.status_code}."
                )
            length = response.headers.get("content-length")
            total = int(length) if length and length.isdigit() else None
            done = 0
            if progress is not None:
                progress(0, total)
            with target.open("wb") as sink:
                for chunk in response.iter_bytes(CHUNK_BYTES):
                    sink.write(chunk)
                    digest.update(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(done, total)
    except httpx.TransportError as error:
        target.unlink(missing_ok=True)
        raise OfflineError(
            f"Could not download {what} from {url} ({error.__class__.__name__}). "
            "Check the network connection."
        ) from error
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    actual = digest.digest()
    if expected is not None and actual != expected:
        target.unlink(missing_ok=True)
        raise IntegrityError(
            f"The checksum of {what} does not match the one the npm registry published "
            f"(expected {sri(algorithm, expected)}, got {sri(algorithm, actual)}). "
            "Nothing was cached; try again, and if it persists the download was tampered with."
        )
    return sri(algorithm, actual)

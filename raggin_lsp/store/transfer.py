"""The export file: gzip JSON lines, a header, one stored point per line, a trailer.

The header names the profile and its model fingerprint, so a file is only ever loaded
into the collection of the model that made its vectors. Dense vectors are base64
float32 (exact and about a third of the size of decimal text).

Since format version 2 the last line is a trailer,
``{"format": "raggin-index-export-end", "points": N, "sha256": HEX}``, where ``HEX`` is the
sha256 of the uncompressed text of every line before it (header included, each with its
``\n``). A file is checked against it before anything is written, which also tells a
truncated file from a whole one. Version 1 files (no trailer) still import, unverified.
"""

import base64
import gzip
import hashlib
import json
import time
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from raggin_lsp.embed.base import ProfileSpec, SparseVector
from raggin_lsp.store.model import (
    ExportChecksumError,
    ExportFormatError,
    ExportVersionError,
    ProfileMismatchError,
)
from raggin_lsp.store.points import StoredPoint, StoredVector

FORMAT = "raggin-index-export"
TRAILER = "raggin-index-export-end"
FORMAT_VERSION = 2
CHECKSUM = "sha256"
# What reading a damaged gzip file raises: a flipped byte in the deflate stream is a
# zlib.error (e.g. "invalid distance too far back"), not an OSError.
_DAMAGED = (OSError, EOFError, zlib.error)


@dataclass(frozen=True)
class ExportHeader:
    profile: str
    fingerprint: str
    dense_dim: int
    version: str
    sections: int
    format_version: int = FORMAT_VERSION

    @property
    def has_checksum(self) -> bool:
        return self.format_version >= 2

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "profile": self.profile,
            "fingerprint": self.fingerprint,
            "dense_dim": self.dense_dim,
            "version": self.version,
            "sections": self.sections,
            "checksum": CHECKSUM,
            "exported_at": time.time(),
        }


def _line(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_line(handle: IO[str], data: dict[str, Any]) -> None:
    handle.write(_line(data))


class ExportWriter:
    """Writes the header and points of one export, then the trailer with their sha256.

    The file is written under a temporary name and renamed when complete, so a broken
    export never sits where a finished one is expected.
    """

    def __init__(self, path: Path, header: ExportHeader) -> None:
        self.path = path
        self._partial = path.with_name(path.name + ".part")
        path.parent.mkdir(parents=True, exist_ok=True)
        # Closed by finish() or abandon(): the writer outlives any one with-block.
        self._handle: IO[str] = gzip.open(self._partial, "wt", encoding="utf-8")  # noqa: SIM115
        self._digest = hashlib.sha256()
        self.points = 0
        self._write(header.to_json())

    def _write(self, data: dict[str, Any]) -> None:
        text = _line(data)
        self._digest.update(text.encode("utf-8"))
        self._handle.write(text)

    def add(self, point: StoredPoint) -> None:
        self._write(encode_point(point))
        self.points += 1

    def finish(self) -> str:
        """Write the trailer and publish the file; returns the sha256 (hex)."""
        checksum = self._digest.hexdigest()
        trailer = {"format": TRAILER, "points": self.points, CHECKSUM: checksum}
        self._handle.write(_line(trailer))
        self._handle.close()
        self._partial.replace(self.path)
        return checksum

    def abandon(self) -> None:
        self._handle.close()
        self._partial.unlink(missing_ok=True)


def encode_point(point: StoredPoint) -> dict[str, Any]:
    payload = dict(point.payload)
    payload.pop("versions", None)
    vectors: dict[str, Any] = {}
    for name, vector in point.vectors.items():
        if isinstance(vector, SparseVector):
            vectors[name] = {"indices": list(vector.indices), "values": list(vector.values)}
        else:
            raw = np.asarray(vector, dtype="<f4").tobytes()
            vectors[name] = base64.b64encode(raw).decode("ascii")
    return {"id": point.id, "payload": payload, "vector": vectors}


def decode_point(data: dict[str, Any]) -> StoredPoint:
    """The stored point of one line (its payload without ``versions``)."""
    vectors: dict[str, StoredVector] = {}
    for name, value in data["vector"].items():
        if isinstance(value, dict):
            vectors[name] = SparseVector(
                indices=tuple(int(i) for i in value["indices"]),
                values=tuple(float(v) for v in value["values"]),
            )
        else:
            raw = base64.b64decode(value)
            vectors[name] = np.frombuffer(raw, dtype="<f4").astype(np.float32).tolist()
    return StoredPoint(id=str(data["id"]), vectors=vectors, payload=dict(data["payload"]))


def read_header(path: Path, spec: ProfileSpec, *, name: str | None = None) -> ExportHeader:
    """The file's header, checked against the profile and model of ``spec``.

    ``name`` is how messages call the file (the URL it was downloaded from).
    """
    shown = name or str(path)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            first = handle.readline()
        raw = json.loads(first) if first else None
    except FileNotFoundError:
        raise ExportFormatError(f"There is no file {shown} to import.") from None
    except (*_DAMAGED, json.JSONDecodeError, UnicodeDecodeError) as error:
        if isinstance(error, _DAMAGED) and _is_gzip(path):  # a gzip file, damaged
            raise ExportChecksumError(_damaged(shown, error)) from None
        raise ExportFormatError(
            f"{shown} is not a raggin index export (gzip JSON lines): {error}"
        ) from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ExportFormatError(f"{shown} is not a raggin index export (its header is missing).")
    header = ExportHeader(
        profile=str(raw.get("profile")),
        fingerprint=str(raw.get("fingerprint")),
        dense_dim=int(raw.get("dense_dim", 0)),
        version=str(raw.get("version")),
        sections=int(raw.get("sections", 0)),
        format_version=int(raw.get("format_version", 1)),
    )
    if header.format_version > FORMAT_VERSION:
        raise ExportFormatError(
            f"{shown} is a raggin index export of format {header.format_version}; this "
            f"raggin-lsp reads formats up to {FORMAT_VERSION}: upgrade raggin-lsp to import it."
        )
    if header.profile != spec.name:
        raise ProfileMismatchError(
            f"{shown} holds vectors of the embedding profile '{header.profile}', but this "
            f"index uses the profile '{spec.name}'. Vectors of different models cannot be "
            f"mixed: run `raggin-lsp index {header.version} --from {shown} --profile "
            f"{header.profile}`, or index the version here with `raggin-lsp index "
            f"{header.version} --profile {spec.name}`."
        )
    if header.fingerprint != spec.fingerprint:
        raise ProfileMismatchError(
            f"{shown} holds vectors of the profile '{header.profile}' made by another model "
            f"(fingerprint {header.fingerprint[:12]}) than the one this machine uses "
            f"(fingerprint {spec.fingerprint[:12]}). Vectors of different models cannot be "
            f"mixed: import it where the same model is installed (same --model-path), or "
            f"index the version here with `raggin-lsp index {header.version} --profile "
            f"{spec.name}`."
        )
    return header


def is_export(path: Path) -> bool:
    """Whether ``path`` is a file whose first line is a raggin export header."""
    if not path.is_file():
        return False
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            first = handle.readline(1 << 16)
        raw = json.loads(first)
    except (*_DAMAGED, ValueError):
        return False
    return isinstance(raw, dict) and raw.get("format") == FORMAT


def verify(path: Path, header: ExportHeader, *, name: str | None = None) -> int | None:
    """Check the file against its trailer's sha256 before anything is imported.

    Returns the number of points the trailer announces, or None for a version 1 file
    (made before exports carried a checksum). Raises :class:`ExportChecksumError` when
    the content differs from the checksum or the trailer is missing (a truncated file).
    """
    if not header.has_checksum:
        return None
    shown = name or str(path)
    digest = hashlib.sha256()
    trailer: dict[str, Any] | None = None
    try:
        with gzip.open(path, "rb") as handle:
            for line in handle:
                if line.startswith(b'{"format":"' + TRAILER.encode() + b'"'):
                    trailer = json.loads(line)
                    break
                digest.update(line)
            extra = handle.read(1)
    except (*_DAMAGED, ValueError) as error:
        raise ExportChecksumError(_damaged(shown, error)) from None
    if trailer is None:
        raise ExportChecksumError(
            f"{shown} ends before its checksum line: the file is truncated (an interrupted "
            "export or download); nothing was imported. Export or download it again."
        )
    expected = str(trailer.get(CHECKSUM, ""))
    actual = digest.hexdigest()
    if actual != expected or extra:
        raise ExportChecksumError(
            f"The content of {shown} does not match its sha256 checksum (expected "
            f"{expected[:16]}..., got {actual[:16]}...): the file was changed or damaged "
            "after it was exported; nothing was imported. Export or download it again."
        )
    return int(trailer.get("points", 0))


def _is_gzip(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(2) == b"\x1f\x8b"
    except OSError:
        return False


def _damaged(shown: str, error: BaseException) -> str:
    return (
        f"{shown} is damaged (truncated or corrupt: {error}); nothing was imported. "
        "Export or download it again."
    )


def read_points(path: Path) -> Iterator[dict[str, Any]]:
    """The point lines after the header (check the header first with :func:`read_header`)."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            handle.readline()
            for number, line in enumerate(handle, start=2):
                if not line.strip():
                    continue
                data = json.loads(line)
                if isinstance(data, dict) and data.get("format") == TRAILER:
                    return
                if not isinstance(data, dict) or "id" not in data or "vector" not in data:
                    raise ExportFormatError(f"{path}, line {number}: not a stored point.")
                yield data
    except (*_DAMAGED, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ExportFormatError(f"{path} is damaged (truncated or corrupt): {error}") from None


def write_export(path: Path, header: ExportHeader, points: Iterable[StoredPoint]) -> int:
    """Write ``points`` to ``path`` after ``header``; the file appears under its name only
    once complete. Returns the number of points written."""
    writer = ExportWriter(path, header)
    try:
        for point in points:
            writer.add(point)
        writer.finish()
    except BaseException:
        writer.abandon()
        raise
    return writer.points


def read_export(
    path: Path, spec: ProfileSpec, *, version: str | None = None, name: str | None = None
) -> tuple[ExportHeader, Iterator[StoredPoint]]:
    """An export's header and its points, once everything is checked: the profile and
    model, the Next.js ``version`` when given, and the file's sha256 checksum. ``name`` is
    how messages call the file (the URL it was downloaded from)."""
    shown = name or str(path)
    header = read_header(path, spec, name=shown)
    if version is not None and version != header.version:
        raise ExportVersionError(
            f"{shown} holds the Next.js {header.version} docs, not {version}: run "
            f"`raggin-lsp index {header.version} --from {shown}`, or pick the export of "
            f"{version}."
        )
    verify(path, header, name=shown)
    return header, (decode_point(data) for data in read_points(path))

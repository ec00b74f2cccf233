"""The export file: gzip JSON lines, a header then one stored point per line.

The header names the profile and its model fingerprint, so a file is only ever loaded
into the collection of the model that made its vectors. Dense vectors are base64
float32 (exact and about a third of the size of decimal text).
"""

import base64
import gzip
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from raggin_lsp.embed.base import ProfileSpec, SparseVector
from raggin_lsp.store.model import ExportFormatError, ProfileMismatchError
from raggin_lsp.store.points import StoredPoint, StoredVector

FORMAT = "raggin-index-export"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class ExportHeader:
    profile: str
    fingerprint: str
    dense_dim: int
    version: str
    sections: int

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "profile": self.profile,
            "fingerprint": self.fingerprint,
            "dense_dim": self.dense_dim,
            "version": self.version,
            "sections": self.sections,
            "exported_at": time.time(),
        }


def write_line(handle: IO[str], data: dict[str, Any]) -> None:
    handle.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    handle.write("\n")


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


def read_header(path: Path, spec: ProfileSpec) -> ExportHeader:
    """The file's header, checked against the profile and model of ``spec``."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            first = handle.readline()
        raw = json.loads(first) if first else None
    except FileNotFoundError:
        raise ExportFormatError(f"There is no file {path} to import.") from None
    except (OSError, EOFError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ExportFormatError(
            f"{path} is not a raggin index export (gzip JSON lines): {error}"
        ) from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ExportFormatError(f"{path} is not a raggin index export (its header is missing).")
    header = ExportHeader(
        profile=str(raw.get("profile")),
        fingerprint=str(raw.get("fingerprint")),
        dense_dim=int(raw.get("dense_dim", 0)),
        version=str(raw.get("version")),
        sections=int(raw.get("sections", 0)),
    )
    if header.profile != spec.name or header.fingerprint != spec.fingerprint:
        raise ProfileMismatchError(
            f"{path} holds vectors of the embedding profile '{header.profile}' (model "
            f"fingerprint {header.fingerprint[:12]}), but this index uses '{spec.name}' "
            f"(fingerprint {spec.fingerprint[:12]}). Vectors of different models cannot be "
            f"mixed: import it with the profile '{header.profile}' and the same model, or "
            f"index the version here with `raggin-lsp index {header.version}`."
        )
    return header


def read_points(path: Path) -> Iterator[dict[str, Any]]:
    """The point lines after the header (check the header first with :func:`read_header`)."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            handle.readline()
            for number, line in enumerate(handle, start=2):
                if not line.strip():
                    continue
                data = json.loads(line)
                if not isinstance(data, dict) or "id" not in data or "vector" not in data:
                    raise ExportFormatError(f"{path}, line {number}: not a stored point.")
                yield data
    except (OSError, EOFError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ExportFormatError(f"{path} is damaged (truncated or corrupt): {error}") from None


def open_for_writing(path: Path) -> IO[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    return gzip.open(path, "wt", encoding="utf-8")

"""Vectors of texts already embedded, kept by the text's sha256 for one model.

Indexing a second release embeds only the texts the first did not have: a paragraph
that did not change is looked up here instead of being run through the model again,
even when the section around it changed (see ``raggin_lsp.store.schema.dense_units``).

One SQLite file per index and profile (the embedded store keeps it next to its
generations). It only ever saves work: a missing, unreadable or full file behaves as an
empty cache, with one warning, and indexing goes on by embedding the texts.
"""

import hashlib
import logging
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from raggin_lsp.embed.base import Embedding, SparseVector

log = logging.getLogger(__name__)

# SQLite caps the host parameters of one statement (32766 since 3.32); lookups go in
# slices well below that.
_LOOKUP_SLICE = 500
# A row is ~1.8 kB (a 384-d float32 vector and a sparse one): a rowid table on 16 kB pages
# packs them (a WITHOUT ROWID table on 4 kB pages took 2.5 times the space).
_PAGE_SIZE = 16384
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS vectors ("
    " key BLOB PRIMARY KEY, dense BLOB NOT NULL, indices BLOB NOT NULL, weights BLOB NOT NULL)"
)


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class VectorCache:
    """``get`` what was stored, ``put`` what was embedded; ``close`` when the job ends."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
            db.execute(f"PRAGMA page_size={_PAGE_SIZE}")  # only takes on a new file
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)
            self._db = db
        except (sqlite3.Error, OSError) as error:
            self._give_up("open", error)

    def get(self, texts: Iterable[str]) -> dict[str, Embedding]:
        """The stored embeddings of those ``texts`` that have one."""
        wanted = {text_key(text): text for text in texts}
        found: dict[str, Embedding] = {}
        keys = list(wanted)
        for start in range(0, len(keys), _LOOKUP_SLICE):
            if self._db is None:
                break
            part = keys[start : start + _LOOKUP_SLICE]
            marks = ",".join("?" * len(part))
            try:
                rows = self._db.execute(
                    f"SELECT key, dense, indices, weights FROM vectors WHERE key IN ({marks})",
                    part,
                ).fetchall()
            except sqlite3.Error as error:
                self._give_up("read", error)
                break
            for key, dense, indices, weights in rows:
                found[wanted[key]] = _embedding(dense, indices, weights)
        return found

    def put(self, embeddings: Mapping[str, Embedding]) -> None:
        if self._db is None or not embeddings:
            return
        rows = [
            (
                text_key(text),
                np.asarray(item.dense, dtype=np.float32).tobytes(),
                np.asarray(item.sparse.indices, dtype=np.int64).tobytes(),
                np.asarray(item.sparse.values, dtype=np.float64).tobytes(),
            )
            for text, item in embeddings.items()
        ]
        try:
            with self._db:
                self._db.execute("BEGIN")
                self._db.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?, ?, ?)", rows)
        except sqlite3.Error as error:
            self._give_up("write", error)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _give_up(self, action: str, error: Exception) -> None:
        log.warning(
            "Could not %s the vector cache %s (%s); texts are embedded again instead.",
            action,
            self.path,
            error,
        )
        if self._db is not None:
            self._db.close()
        self._db = None


def _embedding(dense: bytes, indices: bytes, weights: bytes) -> Embedding:
    return Embedding(
        dense=np.frombuffer(dense, dtype=np.float32).copy(),
        sparse=SparseVector(
            indices=tuple(int(i) for i in np.frombuffer(indices, dtype=np.int64)),
            values=tuple(float(v) for v in np.frombuffer(weights, dtype=np.float64)),
        ),
    )

"""One embedding profile's sections in a Qdrant Edge shard: Qdrant's engine in-process.

``qdrant-edge-py`` runs Qdrant's own segments, payload indexes, sparse IDF scoring and
Query API (prefetch + RRF/DBSF fusion) inside this process. This module is the only one
that imports it; it speaks the store's neutral types (:mod:`raggin_lsp.store.points`).

Edge allows one open shard per directory and has no read-only mode; opening a shard that
another handle holds can corrupt the holder. This class therefore never decides *which*
directory to open: :mod:`raggin_lsp.store.generations` hands it a directory that this
process alone owns.
"""

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

import qdrant_edge as qe

from raggin_lsp.corpus.summary import PAGE_TAG
from raggin_lsp.embed.base import ProfileSpec, SparseVector
from raggin_lsp.store.points import (
    RRF_K,
    FusionMethod,
    Hit,
    Prefetches,
    QueryVector,
    StoredPoint,
    StoredVector,
    dense_list,
    in_rank_order,
    prefetch_items,
)
from raggin_lsp.store.schema import CODE, KEYWORD_FIELDS, SPARSE, TEXT

_PAGE = 256


def shard_config(spec: ProfileSpec) -> qe.EdgeConfig:
    modifier = qe.Modifier.Idf if spec.sparse_uses_idf else None
    return qe.EdgeConfig(
        vectors={TEXT: _dense_params(spec), CODE: _dense_params(spec)},
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=modifier)},
    )


def _dense_params(spec: ProfileSpec) -> qe.EdgeVectorParams:
    """Dense vectors stay in their memory-mapped files (read through the page cache)
    instead of being loaded whole: Edge grows them in 32 MiB chunks and loads a chunk in
    full, holes included, so the 12 MB of light-profile vectors per name of one version
    kept 64 MB resident in every reader, where searches touch the 24 MB of vectors (the
    language server after a search: 389 MB, 337 MB mapped). A nearest-neighbour query
    over 8k points: 0.5 ms loaded, 0.75 ms mapped."""
    return qe.EdgeVectorParams(size=spec.dense_dim, distance=qe.Distance.Cosine, on_disk=True)


class EdgeCollection:
    """Reads and writes of one shard directory (which the caller owns exclusively)."""

    def __init__(self, shard: qe.EdgeShard, path: Path) -> None:
        self._shard = shard
        self.path = path

    @classmethod
    def create(cls, path: Path, spec: ProfileSpec) -> "EdgeCollection":
        shard = qe.EdgeShard.create(str(path), shard_config(spec))
        for name in KEYWORD_FIELDS:
            shard.update(qe.UpdateOperation.create_field_index(name, qe.PayloadSchemaType.Keyword))
        shard.flush()
        return cls(shard, path)

    @classmethod
    def load(cls, path: Path) -> "EdgeCollection":
        """Open an existing shard; raises whatever Edge raises for a damaged one."""
        return cls(qe.EdgeShard.load(str(path)), path)

    def flush(self) -> None:
        self._shard.flush()

    def close(self) -> None:
        self._shard.close()

    # ----------------------------------------------------------------- writing

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        if points:
            edge_points = [
                qe.Point(point.id, _edge_vectors(point.vectors), dict(point.payload))
                for point in points
            ]
            self._shard.update(qe.UpdateOperation.upsert_points(edge_points))

    def set_vectors(self, points: Sequence[StoredPoint]) -> None:
        """Add or replace the named vectors of stored points (payload and others kept)."""
        if points:
            update = [qe.PointVectors(point.id, _edge_vectors(point.vectors)) for point in points]
            self._shard.update(qe.UpdateOperation.update_vectors(update))

    def set_versions(self, ids: Sequence[str], versions: Sequence[str]) -> None:
        for start in range(0, len(ids), _PAGE):
            page: list[int | UUID | str] = list(ids[start : start + _PAGE])
            self._shard.update(qe.UpdateOperation.set_payload(page, {"versions": list(versions)}))

    def delete(self, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), _PAGE):
            self._shard.update(qe.UpdateOperation.delete_points(list(ids[start : start + _PAGE])))

    # ----------------------------------------------------------------- reading

    def count(self, version: str | None = None, *, having: str | None = None) -> int:
        """Points (of ``version``; holding the named vector ``having``) stored."""
        must: list[Any] = []
        if version:
            must.append(qe.FieldCondition(key="versions", match=qe.MatchValue(value=version)))
        if having is not None:
            must.append(qe.HasVectorCondition(having))
        query_filter = qe.Filter(must=must) if must else None
        return int(self._shard.count(qe.CountRequest(exact=True, filter=query_filter)))

    def lacking(self, version: str, name: str) -> list[str]:
        """Ids of ``version``'s points that have no ``name`` vector yet."""
        query_filter = qe.Filter(
            must=[qe.FieldCondition(key="versions", match=qe.MatchValue(value=version))],
            must_not=[qe.HasVectorCondition(name)],
        )
        found: list[str] = []
        offset: Any = None
        while True:
            records, offset = self._shard.scroll(
                qe.ScrollRequest(
                    offset=offset,
                    limit=_PAGE,
                    filter=query_filter,
                    with_payload=False,
                    with_vector=False,
                )
            )
            found.extend(str(record.id) for record in records)
            if offset is None:
                return found

    def versions_of(self, ids: Sequence[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for start in range(0, len(ids), _PAGE):
            records = self._shard.retrieve(
                list(ids[start : start + _PAGE]), with_payload=["versions"], with_vector=False
            )
            for record in records:
                found[str(record.id)] = list((record.payload or {}).get("versions", []))
        return found

    def with_version(self, version: str, *, vectors: bool = False) -> Iterator[StoredPoint]:
        """Every point listing ``version`` (payload always; vectors when asked)."""
        offset: Any = None
        query_filter = version_filter(version, None, None, None, None)
        while True:
            records, offset = self._shard.scroll(
                qe.ScrollRequest(
                    offset=offset,
                    limit=_PAGE,
                    filter=query_filter,
                    with_payload=True,
                    with_vector=vectors,
                )
            )
            for record in records:
                yield StoredPoint(
                    id=str(record.id),
                    vectors=_neutral_vectors(record.vector) if vectors else {},
                    payload=dict(record.payload or {}),
                )
            if offset is None:
                return

    def rank(
        self,
        name: str,
        query: QueryVector,
        version: str,
        routers: Sequence[str] | None,
        limit: int,
        only: Sequence[str] | None = None,
        pages: Sequence[str] | None = None,
        summaries: bool = False,
    ) -> list[Hit]:
        if limit <= 0 or (only is not None and not only) or (pages is not None and not pages):
            return []
        points = self._shard.query(
            qe.QueryRequest(
                limit=limit,
                query=qe.Query.Nearest(_edge_query(query), using=name),
                filter=version_filter(version, routers, only, pages, summaries),
                with_payload=True,
            )
        )
        return in_rank_order([_hit(point) for point in points])

    def fuse(
        self,
        method: FusionMethod,
        queries: Prefetches,
        version: str,
        routers: Sequence[str] | None,
        limit: int,
        candidates: int,
        weights: Sequence[float] | None = None,
        pages: Sequence[str] | None = None,
        summaries: bool = False,
    ) -> list[Hit]:
        if limit <= 0 or not queries or (pages is not None and not pages):
            return []
        query_filter = version_filter(version, routers, None, pages, summaries)
        prefetches = [
            qe.Prefetch(
                limit=candidates,
                query=qe.Query.Nearest(_edge_query(vector), using=name),
                filter=query_filter,
            )
            for name, vector in prefetch_items(queries)
        ]
        fusion: Any = (
            qe.Fusion.Rrf(k=RRF_K, weights=list(weights) if weights is not None else None)
            if method == "rrf"
            else qe.Fusion.Dbsf()
        )
        points = self._shard.query(
            qe.QueryRequest(
                limit=limit,
                prefetches=prefetches,
                query=fusion,
                filter=query_filter,
                with_payload=True,
            )
        )
        return in_rank_order([_hit(point) for point in points])


def version_filter(
    version: str,
    routers: Sequence[str] | None,
    only: Sequence[str] | None,
    pages: Sequence[str] | None = None,
    summaries: bool | None = None,
) -> qe.Filter:
    """Points of ``version`` (of these routers, ids and pages when given): sections, or
    with ``summaries`` the pages' outline points (None: both, for maintenance)."""
    must: list[Any] = [qe.FieldCondition(key="versions", match=qe.MatchValue(value=version))]
    if routers is not None:
        must.append(qe.FieldCondition(key="router", match=qe.MatchAny(any=list(routers))))
    if only is not None:
        must.append(qe.HasIdCondition(point_ids=set(only)))
    if pages is not None:
        must.append(qe.FieldCondition(key="url_path", match=qe.MatchAny(any=list(pages))))
    summary = qe.FieldCondition(key="tag", match=qe.MatchValue(value=PAGE_TAG))
    if summaries is None:
        return qe.Filter(must=must)
    if summaries:
        return qe.Filter(must=[*must, summary])
    return qe.Filter(must=must, must_not=[summary])


def _edge_query(query: QueryVector) -> Any:
    if isinstance(query, SparseVector):
        return qe.SparseVector(indices=list(query.indices), values=list(query.values))
    return dense_list(query)


def _edge_vectors(vectors: Mapping[str, StoredVector]) -> dict[str, Any]:
    return {
        name: (
            qe.SparseVector(indices=list(vector.indices), values=list(vector.values))
            if isinstance(vector, SparseVector)
            else list(vector)
        )
        for name, vector in vectors.items()
    }


def _neutral_vectors(vector: Any) -> dict[str, StoredVector]:
    if not isinstance(vector, dict):
        return {}
    neutral: dict[str, StoredVector] = {}
    for name, value in vector.items():
        if isinstance(value, qe.SparseVector):
            neutral[name] = SparseVector(
                indices=tuple(int(i) for i in value.indices),
                values=tuple(float(v) for v in value.values),
            )
        else:
            neutral[name] = [float(v) for v in value]
    return neutral


def _hit(point: qe.ScoredPoint) -> Hit:
    return Hit(id=str(point.id), score=float(point.score), payload=point.payload or {})

"""One embedding profile's sections in a Qdrant Edge shard: Qdrant's engine in-process.

``qdrant-edge-py`` runs Qdrant's own segments, payload indexes, sparse IDF scoring and
Query API (prefetch + RRF/DBSF fusion) inside this process. This module is the only one
that imports it; it speaks the store's neutral types (:mod:`raggin_lsp.store.points`).

Edge allows one open shard per directory and has no read-only mode; opening a shard that
another handle holds can corrupt the holder. This class therefore never decides *which*
directory to open: :mod:`raggin_lsp.store.generations` hands it a directory that this
process alone owns.
"""

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from raggin_lsp.corpus.summary import PAGE_TAG
from raggin_lsp.embed.base import ProfileSpec
from raggin_lsp.store.points import (
    RRF_K,
    FusionMethod,
    Hit,
    Prefetches,
    QueryVector,
    Scope,
    StoredPoint,
    engine_query,
    engine_vectors,
    hit,
    in_pages,
    in_rank_order,
    listed_versions,
    prefetch_items,
    scrolled,
    stored_point,
)
from raggin_lsp.store.schema import CODE, KEYWORD_FIELDS, SPARSE, TEXT

_PAGE = 256


def shard_config(spec: ProfileSpec) -> qe.EdgeConfig:
    dense = qe.EdgeVectorParams(size=spec.dense_dim, distance=qe.Distance.Cosine)
    modifier = qe.Modifier.Idf if spec.sparse_uses_idf else None
    return qe.EdgeConfig(
        vectors={
            TEXT: dense,
            CODE: qe.EdgeVectorParams(size=spec.dense_dim, distance=qe.Distance.Cosine),
        },
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=modifier)},
    )


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
                qe.Point(
                    point.id, engine_vectors(point.vectors, qe.SparseVector), dict(point.payload)
                )
                for point in points
            ]
            self._shard.update(qe.UpdateOperation.upsert_points(edge_points))

    def set_vectors(self, points: Sequence[StoredPoint]) -> None:
        """Add or replace the named vectors of stored points (payload and others kept)."""
        if points:
            update = [
                qe.PointVectors(point.id, engine_vectors(point.vectors, qe.SparseVector))
                for point in points
            ]
            self._shard.update(qe.UpdateOperation.update_vectors(update))

    def set_versions(self, ids: Sequence[str], versions: Sequence[str]) -> None:
        for page in in_pages(ids, _PAGE):
            self._shard.update(
                qe.UpdateOperation.set_payload([*page], {"versions": list(versions)})
            )

    def delete(self, ids: Sequence[str]) -> None:
        for page in in_pages(ids, _PAGE):
            self._shard.update(qe.UpdateOperation.delete_points([*page]))

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
        records = scrolled(
            lambda offset: self._shard.scroll(
                qe.ScrollRequest(
                    offset=offset,
                    limit=_PAGE,
                    filter=query_filter,
                    with_payload=False,
                    with_vector=False,
                )
            )
        )
        return [str(record.id) for record in records]

    def versions_of(self, ids: Sequence[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for page in in_pages(ids, _PAGE):
            records = self._shard.retrieve([*page], with_payload=["versions"], with_vector=False)
            found.update(listed_versions(records))
        return found

    def with_version(self, version: str, *, vectors: bool = False) -> Iterator[StoredPoint]:
        """Every point listing ``version`` (payload always; vectors when asked)."""
        query_filter = version_filter(Scope(version, summaries=None))
        records = scrolled(
            lambda offset: self._shard.scroll(
                qe.ScrollRequest(
                    offset=offset,
                    limit=_PAGE,
                    filter=query_filter,
                    with_payload=True,
                    with_vector=vectors,
                )
            )
        )
        for record in records:
            yield stored_point(record, qe.SparseVector, vectors=vectors)

    def rank(self, name: str, query: QueryVector, scope: Scope, limit: int) -> list[Hit]:
        if limit <= 0 or scope.empty:
            return []
        points = self._shard.query(
            qe.QueryRequest(
                limit=limit,
                query=qe.Query.Nearest(engine_query(query, qe.SparseVector), using=name),
                filter=version_filter(scope),
                with_payload=True,
            )
        )
        return in_rank_order([hit(point) for point in points])

    def fuse(
        self,
        method: FusionMethod,
        queries: Prefetches,
        scope: Scope,
        limit: int,
        candidates: int,
        weights: Sequence[float] | None = None,
    ) -> list[Hit]:
        if limit <= 0 or not queries or scope.empty:
            return []
        query_filter = version_filter(scope)
        prefetches = [
            qe.Prefetch(
                limit=candidates,
                query=qe.Query.Nearest(engine_query(vector, qe.SparseVector), using=name),
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
        return in_rank_order([hit(point) for point in points])


def version_filter(scope: Scope) -> qe.Filter:
    """The Edge filter selecting the points of ``scope``."""
    must: list[Any] = []
    if scope.version is not None:
        must.append(qe.FieldCondition(key="versions", match=qe.MatchValue(value=scope.version)))
    if scope.routers is not None:
        must.append(qe.FieldCondition(key="router", match=qe.MatchAny(any=list(scope.routers))))
    if scope.only is not None:
        must.append(qe.HasIdCondition(point_ids=set(scope.only)))
    if scope.pages is not None:
        must.append(qe.FieldCondition(key="url_path", match=qe.MatchAny(any=list(scope.pages))))
    summary = qe.FieldCondition(key="tag", match=qe.MatchValue(value=PAGE_TAG))
    if scope.summaries is None:
        return qe.Filter(must=must)
    if scope.summaries:
        return qe.Filter(must=[*must, summary])
    return qe.Filter(must=must, must_not=[summary])

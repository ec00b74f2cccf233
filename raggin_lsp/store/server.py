"""One embedding profile's sections in a Qdrant server or cluster, through qdrant-client.

The same operations as :class:`raggin_lsp.store.edge.EdgeCollection`, sent to a server:
prefetch per named vector fused by ``Fusion.RRF``/``Fusion.DBSF`` in one Query API call,
payload filters executed by Qdrant. The server arbitrates concurrency, so no lock or copy
is involved; the list of versions lives in the manifest collection
(:mod:`raggin_lsp.store.manifest`).
"""

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from qdrant_client import QdrantClient, models

from raggin_lsp.corpus.summary import PAGE_TAG
from raggin_lsp.embed.base import ProfileSpec
from raggin_lsp.store import manifest
from raggin_lsp.store.model import EntryState, VersionInfo
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
from raggin_lsp.store.settings import StoreSettings
from raggin_lsp.store.views import Points, ReadView, WriteView

_PAGE = 256
_SCROLL_PAGE = 512


def vectors_config(spec: ProfileSpec) -> dict[str, models.VectorParams]:
    dense = models.VectorParams(size=spec.dense_dim, distance=models.Distance.COSINE)
    return {TEXT: dense, CODE: dense.model_copy()}


def sparse_vectors_config(spec: ProfileSpec) -> dict[str, models.SparseVectorParams]:
    modifier = models.Modifier.IDF if spec.sparse_uses_idf else None
    return {SPARSE: models.SparseVectorParams(modifier=modifier)}


class ServerCollection:
    def __init__(self, client: QdrantClient, collection: str) -> None:
        self.client = client
        self.collection = collection

    def ensure(self, spec: ProfileSpec, *, shard_number: int, replication_factor: int) -> None:
        if self.client.collection_exists(self.collection):
            return
        self.client.create_collection(
            self.collection,
            vectors_config=vectors_config(spec),
            sparse_vectors_config=sparse_vectors_config(spec),
            shard_number=shard_number,
            replication_factor=replication_factor,
            metadata={"profile": spec.name, "fingerprint": spec.fingerprint},
        )
        with warnings.catch_warnings():
            # Local mode (parity tests) warns that payload indexes do nothing there.
            warnings.simplefilter("ignore", UserWarning)
            for field in KEYWORD_FIELDS:
                self.client.create_payload_index(
                    self.collection, field, models.PayloadSchemaType.KEYWORD
                )

    def exists(self) -> bool:
        return self.client.collection_exists(self.collection)

    # ----------------------------------------------------------------- writing

    def upsert(self, points: Sequence[StoredPoint]) -> None:
        if points:
            self.client.upsert(
                self.collection,
                points=[
                    models.PointStruct(
                        id=point.id,
                        vector=engine_vectors(point.vectors, models.SparseVector),
                        payload=dict(point.payload),
                    )
                    for point in points
                ],
                wait=True,
            )

    def set_vectors(self, points: Sequence[StoredPoint]) -> None:
        """Add or replace the named vectors of stored points (payload and others kept)."""
        if points:
            self.client.update_vectors(
                self.collection,
                points=[
                    models.PointVectors(
                        id=point.id, vector=engine_vectors(point.vectors, models.SparseVector)
                    )
                    for point in points
                ],
                wait=True,
            )

    def set_versions(self, ids: Sequence[str], versions: Sequence[str]) -> None:
        for page in in_pages(ids, _PAGE):
            self.client.set_payload(
                self.collection, payload={"versions": list(versions)}, points=[*page], wait=True
            )

    def delete(self, ids: Sequence[str]) -> None:
        for page in in_pages(ids, _PAGE):
            self.client.delete(
                self.collection, points_selector=models.PointIdsList(points=[*page]), wait=True
            )

    # ----------------------------------------------------------------- reading

    def count(self, version: str | None = None, *, having: str | None = None) -> int:
        """Points (of ``version``; holding the named vector ``having``) stored."""
        if not self.exists():
            return 0
        must: list[models.Condition] = []
        if version is not None:
            must.append(
                models.FieldCondition(key="versions", match=models.MatchValue(value=version))
            )
        if having is not None:
            must.append(models.HasVectorCondition(has_vector=having))
        query_filter = models.Filter(must=must) if must else None
        return self.client.count(self.collection, count_filter=query_filter, exact=True).count

    def lacking(self, version: str, name: str) -> list[str]:
        """Ids of ``version``'s points that have no ``name`` vector yet."""
        if not self.exists():
            return []
        query_filter = models.Filter(
            must=[models.FieldCondition(key="versions", match=models.MatchValue(value=version))],
            must_not=[models.HasVectorCondition(has_vector=name)],
        )
        records = scrolled(
            lambda offset: self.client.scroll(
                self.collection,
                scroll_filter=query_filter,
                limit=_SCROLL_PAGE,
                offset=offset,
                with_payload=False,
                with_vectors=False,
            )
        )
        return [str(record.id) for record in records]

    def versions_of(self, ids: Sequence[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for page in in_pages(ids, _PAGE):
            records = self.client.retrieve(
                self.collection, ids=[*page], with_payload=["versions"], with_vectors=False
            )
            found.update(listed_versions(records))
        return found

    def with_version(self, version: str | None, *, vectors: bool = False) -> Iterator[StoredPoint]:
        """Every point listing ``version`` (every point at all when None)."""
        if not self.exists():
            return
        records = scrolled(
            lambda offset: self.client.scroll(
                self.collection,
                scroll_filter=qdrant_filter(Scope(version, summaries=None)),
                limit=_SCROLL_PAGE,
                offset=offset,
                with_payload=True,
                with_vectors=vectors,
            )
        )
        for record in records:
            yield stored_point(record, models.SparseVector, vectors=vectors)

    def rank(self, name: str, query: QueryVector, scope: Scope, limit: int) -> list[Hit]:
        if limit <= 0 or scope.empty:
            return []
        points = self.client.query_points(
            self.collection,
            query=engine_query(query, models.SparseVector),
            using=name,
            query_filter=qdrant_filter(scope),
            limit=limit,
            with_payload=True,
        ).points
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
        query_filter = qdrant_filter(scope)
        prefetch = [
            models.Prefetch(
                query=engine_query(vector, models.SparseVector),
                using=name,
                filter=query_filter,
                limit=candidates,
            )
            for name, vector in prefetch_items(queries)
        ]
        fusion_query: models.Query
        if method == "dbsf":
            fusion_query = models.FusionQuery(fusion=models.Fusion.DBSF)
        elif weights is None:
            fusion_query = models.FusionQuery(fusion=models.Fusion.RRF)
        else:
            fusion_query = models.RrfQuery(rrf=models.Rrf(k=RRF_K, weights=list(weights)))
        points = self.client.query_points(
            self.collection,
            prefetch=prefetch,
            query=fusion_query,
            query_filter=query_filter,
            limit=limit,
            with_payload=True,
        ).points
        return in_rank_order([hit(point) for point in points])


class _ServerWriteView:
    def __init__(self, backend: "ServerBackend") -> None:
        self._backend = backend
        self.points: Points = backend.points

    def entry(self, version: str) -> VersionInfo | None:
        for info in manifest.entries(self._backend.client, self._backend.collection):
            if info.version == version:
                return info
        return None

    def put_entry(self, version: str, state: EntryState) -> None:
        manifest.put(
            self._backend.client, self._backend.collection, self._backend.spec, version, state
        )

    def delete_entry(self, version: str) -> None:
        manifest.delete(self._backend.client, self._backend.collection, version)

    def checkpoint(self) -> None:
        """Every server write waited for its acknowledgement already."""

    def publish(self) -> None:
        """Searches see every acknowledged write already."""


class ServerBackend:
    def __init__(
        self, settings: StoreSettings, spec: ProfileSpec, collection: str, client: QdrantClient
    ) -> None:
        self.settings = settings
        self.spec = spec
        self.collection = collection
        self.client = client
        self.points = ServerCollection(client, collection)

    def read(self) -> ReadView:
        entries = manifest.entries(self.client, self.collection)
        return ReadView(points=self.points if self.points.exists() else None, entries=entries)

    def all_entries(self) -> list[VersionInfo]:
        return manifest.entries(self.client, None)

    def counts(self) -> dict[str, int]:
        names = {info.collection for info in self.all_entries()} | {self.collection}
        return {name: ServerCollection(self.client, name).count() for name in names}

    @contextmanager
    def writing(self) -> Iterator[WriteView]:
        manifest.ensure(
            self.client,
            shard_number=self.settings.shard_number,
            replication_factor=self.settings.replication_factor,
        )
        self.points.ensure(
            self.spec,
            shard_number=self.settings.shard_number,
            replication_factor=self.settings.replication_factor,
        )
        yield _ServerWriteView(self)

    def close(self) -> None:
        self.client.close()


def server_error_message(error: BaseException) -> str | None:
    """A sentence for people when ``error`` is a Qdrant server failing or unreachable."""
    from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

    if isinstance(error, ResponseHandlingException):
        return (
            f"Cannot reach the Qdrant server ({error}). Check --qdrant-url / qdrantUrl and "
            "that the server is running."
        )
    if isinstance(error, UnexpectedResponse):
        return f"The Qdrant server refused the request: {error}"
    return None


def qdrant_filter(scope: Scope) -> models.Filter:
    """As :func:`raggin_lsp.store.edge.version_filter`."""
    must: list[models.Condition] = []
    if scope.version is not None:
        must.append(
            models.FieldCondition(key="versions", match=models.MatchValue(value=scope.version))
        )
    if scope.routers is not None:
        must.append(
            models.FieldCondition(key="router", match=models.MatchAny(any=list(scope.routers)))
        )
    if scope.only is not None:
        must.append(models.HasIdCondition(has_id=list(scope.only)))
    if scope.pages is not None:
        must.append(
            models.FieldCondition(key="url_path", match=models.MatchAny(any=list(scope.pages)))
        )
    summary = models.FieldCondition(key="tag", match=models.MatchValue(value=PAGE_TAG))
    if scope.summaries is None:
        return models.Filter(must=must)
    if scope.summaries:
        return models.Filter(must=[*must, summary])
    return models.Filter(must=must, must_not=[summary])

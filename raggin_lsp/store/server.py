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
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient, models

from raggin_lsp.corpus.summary import PAGE_TAG
from raggin_lsp.embed.base import ProfileSpec
from raggin_lsp.store import manifest
from raggin_lsp.store.collection import Collection, Fusion, scrolled
from raggin_lsp.store.model import EntryState, VersionInfo
from raggin_lsp.store.points import RRF_K, QueryVector, Scope, StoredPoint
from raggin_lsp.store.schema import CODE, KEYWORD_FIELDS, SPARSE, TEXT
from raggin_lsp.store.settings import StoreSettings
from raggin_lsp.store.views import Points, ReadView, WriteView

_SCROLL_PAGE = 512


def vectors_config(spec: ProfileSpec) -> dict[str, models.VectorParams]:
    dense = models.VectorParams(size=spec.dense_dim, distance=models.Distance.COSINE)
    return {TEXT: dense, CODE: dense.model_copy()}


def sparse_vectors_config(spec: ProfileSpec) -> dict[str, models.SparseVectorParams]:
    modifier = models.Modifier.IDF if spec.sparse_uses_idf else None
    return {SPARSE: models.SparseVectorParams(modifier=modifier)}


class ServerCollection(Collection):
    sparse = models.SparseVector

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
                        vector=self.engine_vectors(point.vectors),
                        payload=dict(point.payload),
                    )
                    for point in points
                ],
                wait=True,
            )

    def set_vectors(self, points: Sequence[StoredPoint]) -> None:
        if points:
            self.client.update_vectors(
                self.collection,
                points=[
                    models.PointVectors(id=point.id, vector=self.engine_vectors(point.vectors))
                    for point in points
                ],
                wait=True,
            )

    # ----------------------------------------------------------------- reading

    def count(self, version: str | None = None, *, having: str | None = None) -> int:
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

    # ---------------------------------------------------------- server requests

    def _filter(self, scope: Scope) -> models.Filter:
        return qdrant_filter(scope)

    def _lacking_filter(self, version: str, name: str) -> models.Filter:
        return models.Filter(
            must=[models.FieldCondition(key="versions", match=models.MatchValue(value=version))],
            must_not=[models.HasVectorCondition(has_vector=name)],
        )

    def _scan(
        self, query_filter: models.Filter, *, payload: bool, vectors: bool = False
    ) -> Iterator[models.Record]:
        return scrolled(
            lambda offset: self.client.scroll(
                self.collection,
                scroll_filter=query_filter,
                limit=_SCROLL_PAGE,
                offset=offset,
                with_payload=payload,
                with_vectors=vectors,
            )
        )

    def _retrieve_versions(self, ids: list[str]) -> list[models.Record]:
        return self.client.retrieve(
            self.collection, ids=[*ids], with_payload=["versions"], with_vectors=False
        )

    def _set_payload(self, ids: list[str], payload: dict[str, Any]) -> None:
        self.client.set_payload(self.collection, payload=payload, points=[*ids], wait=True)

    def _delete(self, ids: list[str]) -> None:
        self.client.delete(
            self.collection, points_selector=models.PointIdsList(points=[*ids]), wait=True
        )

    def _nearest(
        self, name: str, query: QueryVector, scope: Scope, limit: int
    ) -> list[models.ScoredPoint]:
        return self.client.query_points(
            self.collection,
            query=self.engine_query(query),
            using=name,
            query_filter=qdrant_filter(scope),
            limit=limit,
            with_payload=True,
        ).points

    def _fused(self, fusion: Fusion, scope: Scope, limit: int) -> list[models.ScoredPoint]:
        query_filter = qdrant_filter(scope)
        prefetch = [
            models.Prefetch(
                query=self.engine_query(vector),
                using=name,
                filter=query_filter,
                limit=fusion.candidates,
            )
            for name, vector in fusion.prefetches
        ]
        fusion_query: models.Query
        if fusion.method == "dbsf":
            fusion_query = models.FusionQuery(fusion=models.Fusion.DBSF)
        elif fusion.weights is None:
            fusion_query = models.FusionQuery(fusion=models.Fusion.RRF)
        else:
            fusion_query = models.RrfQuery(rrf=models.Rrf(k=RRF_K, weights=list(fusion.weights)))
        return self.client.query_points(
            self.collection,
            prefetch=prefetch,
            query=fusion_query,
            query_filter=query_filter,
            limit=limit,
            with_payload=True,
        ).points


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
        # Sections are reused whole; a server's users share no local folder to cache in.
        self.vector_cache_path: Path | None = None

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

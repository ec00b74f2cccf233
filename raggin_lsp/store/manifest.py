"""The list of indexed versions, kept in Qdrant itself so it works the same on a server.

It is a payload-only collection (``vectors_config={}``; both local mode and the server
accept it, and points are upserted with ``vector={}``), one point per
(sections collection, version). A version is searchable only once its entry says
``complete``; write jobs set that flag last and ``remove_version`` clears the entry first.
"""

import uuid
import warnings
from typing import Any

from qdrant_client import QdrantClient, models

from raggin_lsp.embed.base import ProfileSpec
from raggin_lsp.store.model import EntryState, VersionInfo
from raggin_lsp.store.schema import MANIFEST_COLLECTION

_PAGE = 1000


def ensure(client: QdrantClient, *, shard_number: int, replication_factor: int) -> None:
    if client.collection_exists(MANIFEST_COLLECTION):
        return
    client.create_collection(
        MANIFEST_COLLECTION,
        vectors_config={},
        shard_number=shard_number,
        replication_factor=replication_factor,
    )
    with warnings.catch_warnings():
        # Local mode warns that payload indexes do nothing there; a server needs them.
        warnings.simplefilter("ignore", UserWarning)
        client.create_payload_index(
            MANIFEST_COLLECTION, "collection", models.PayloadSchemaType.KEYWORD
        )


def entry_id(collection: str, version: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"raggin:{collection}/{version}"))


def put(
    client: QdrantClient,
    collection: str,
    spec: ProfileSpec,
    version: str,
    state: EntryState,
) -> None:
    info = state.info(version, spec.name, spec.fingerprint, collection)
    payload: dict[str, Any] = {
        "collection": info.collection,
        "version": info.version,
        "complete": info.complete,
        "sections": info.sections,
        "profile": info.profile,
        "fingerprint": info.fingerprint,
        "started_at": info.started_at,
        "completed_at": info.completed_at,
        "lexical": info.lexical,
        "dense": info.dense,
    }
    client.upsert(
        MANIFEST_COLLECTION,
        points=[models.PointStruct(id=entry_id(collection, version), vector={}, payload=payload)],
        wait=True,
    )


def delete(client: QdrantClient, collection: str, version: str) -> None:
    client.delete(
        MANIFEST_COLLECTION,
        points_selector=models.PointIdsList(points=[entry_id(collection, version)]),
        wait=True,
    )


def entries(client: QdrantClient, collection: str | None = None) -> list[VersionInfo]:
    """All entries (of one sections collection when given); none when there is no manifest."""
    if not client.collection_exists(MANIFEST_COLLECTION):
        return []
    query_filter = (
        models.Filter(
            must=[
                models.FieldCondition(key="collection", match=models.MatchValue(value=collection))
            ]
        )
        if collection is not None
        else None
    )
    found: list[VersionInfo] = []
    offset: models.ExtendedPointId | None = None
    while True:
        points, offset = client.scroll(
            MANIFEST_COLLECTION,
            scroll_filter=query_filter,
            limit=_PAGE,
            offset=offset,
            with_payload=True,
        )
        found.extend(_info(point.payload or {}) for point in points)
        if offset is None:
            return found


def _info(payload: dict[str, Any]) -> VersionInfo:
    completed = payload.get("completed_at")
    complete_ = bool(payload.get("complete", False))
    return VersionInfo(
        version=str(payload.get("version", "")),
        complete=complete_,
        sections=int(payload.get("sections", 0)),
        profile=str(payload.get("profile", "")),
        fingerprint=str(payload.get("fingerprint", "")),
        started_at=float(payload.get("started_at", 0.0)),
        completed_at=float(completed) if completed is not None else None,
        collection=str(payload.get("collection", "")),
        lexical=bool(payload.get("lexical", False)),
        dense=int(payload.get("dense", payload.get("sections", 0) if complete_ else 0)),
    )

"""The ``raggin/*`` requests other than ``raggin/ask`` (see docs/protocol.md)."""

import asyncio
from typing import TYPE_CHECKING, Any

from raggin_lsp.errors import RagginError
from raggin_lsp.server import targets
from raggin_lsp.server.loading import stages_json
from raggin_lsp.server.params import (
    DiffParams,
    DocumentParams,
    IndexParams,
    NoParams,
    SearchParams,
    VersionParams,
)

if TYPE_CHECKING:
    from raggin_lsp.server.server import RagginServer


async def search(server: "RagginServer", request: SearchParams) -> list[dict[str, Any]]:
    target = targets.resolve(server, request.uri, version=request.version, router=request.router)
    version = targets.require_version(target)
    answerer = await server.upgrades.answering(version)  # light until bge-m3's is complete
    results = await asyncio.to_thread(
        answerer.assistant.search,
        request.query,
        version,
        router=target.router,
        code=request.code,
        top_k=request.top_k or server.settings.top_k,
        fusion=server.settings.fusion,
    )
    return [result.to_json() for result in results]


async def versions(server: "RagginServer", request: DocumentParams) -> dict[str, Any]:
    assistant = await server.loader.opened()  # no embedding model needed
    known = await asyncio.to_thread(assistant.known_versions)
    target = targets.resolve(server, request.uri)
    project = target.project
    return {
        "known": known,
        "indexed": list(server.loader.indexed),
        # Searchable while their dense vectors are added, with how ("lexical only, dense 40%")
        "stages": stages_json(server.loader.stages),
        # Every searchable version with the profile and stage answering it now
        "profile": server.loader.profile,
        "answering": server.upgrades.answering_json(),
        "latest": server.loader.latest,
        "selected": target.version,
        "selectedBecause": target.reason,
        "router": target.router,
        "detected": project.to_json() if project is not None else None,
        "override": server.version_override,
    }


async def index(server: "RagginServer", request: IndexParams) -> dict[str, Any]:
    await server.loader.assistant()
    version = request.version or targets.require_version(targets.resolve(server, request.uri))
    if server.loader.catalog is not None:
        server.loader.catalog.require(version)
    report = await server.loader.index(version, token=request.work_done_token)
    return {"version": version, "indexed": list(server.loader.indexed), "report": _plain(report)}


async def remove_version(server: "RagginServer", request: VersionParams) -> dict[str, Any]:
    await server.loader.remove(request.version)
    return {"version": request.version, "indexed": list(server.loader.indexed)}


async def models(server: "RagginServer", _request: NoParams) -> dict[str, Any]:
    assistant = await server.loader.opened()  # Ollama's models: no embedding model needed
    return {
        "host": server.settings.ollama_host,
        "configured": server.settings.model,
        "models": await assistant.models(),
    }


async def status(server: "RagginServer", _request: NoParams) -> dict[str, Any]:
    result: dict[str, Any] = {
        "server": {"name": server.name, "version": server.version},
        "loading": server.loader.status(),
        "upgrade": server.upgrades.status(),
        "settings": server.settings.to_json(),
        "versionOverride": server.version_override,
    }
    assistant = server.loader.ready_assistant()
    if assistant is not None:
        result["assistant"] = _plain(await assistant.status())
    return result


def _plain(value: Any) -> Any:
    """A JSON-friendly copy of whatever the pipeline returned (dataclasses, paths)."""
    from dataclasses import asdict, is_dataclass
    from pathlib import Path

    if is_dataclass(value) and not isinstance(value, type):
        return _plain(asdict(value))
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set):
        return [_plain(item) for item in value]
    if isinstance(value, Path):
        return str(value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


async def diff(server: "RagginServer", request: DiffParams) -> dict[str, Any]:
    """The Version History rows between two versions, from the newer one's API catalog
    (its docs only: the older version's docs are never needed), and the pages whose
    content changed when both versions are indexed (no embedding model needed)."""
    from raggin_lsp.changes import api_pages, diff_json, release_key

    target = targets.resolve(server, request.uri, version=request.version)
    until = targets.require_version(target)
    for name, value in (("since", request.since), ("version", until)):
        if release_key(value) is None:
            raise RagginError(f"{name} must be a release such as 16.2.0, got {value!r}")
    root = target.project.root if target.project is not None else None
    catalog = await server.catalogs.get(until, root)
    if catalog is None:
        raise RagginError(f"The docs of Next.js {until} cannot be read (see the log).")
    pages = api_pages(catalog, request.api) if request.api else None
    assistant = await server.loader.opened()
    content = await asyncio.to_thread(assistant.content_changes, request.since, until, pages)
    return diff_json(catalog, request.since, until, request.api, content.to_json())

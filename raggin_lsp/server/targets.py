"""Which docs version and router a request is about.

Order for the version: the request's own ``version``; the version picked with
``raggin.selectVersion``; the ``nextVersion`` setting unless ``auto``; the document's
project (installed, else the declared range); the newest indexed; the newest release.
Order for the router: the request's; the ``router`` setting unless ``auto``; the folder
the document is in; none. (The hover then lets the document's imports decide: the API
catalog knows which router each imported API belongs to.)
"""

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pygls.uris import to_fs_path

from raggin_lsp.errors import RagginError
from raggin_lsp.project import Project, choose_version

if TYPE_CHECKING:
    from raggin_lsp.server.server import RagginServer


@dataclass(frozen=True)
class Target:
    version: str | None
    router: str | None
    reason: str
    project: Project | None
    path: Path | None


def document_path(uri: str | None) -> Path | None:
    if not uri:
        return None
    path = to_fs_path(uri)
    return Path(path) if path else None


def resolve(
    server: "RagginServer",
    uri: str | None,
    *,
    version: str | None = None,
    router: str | None = None,
    text: str | None = None,
) -> Target:
    """The target with what is known now (never waits for the index to load)."""
    path = document_path(uri)
    start = path or server.workspace_root()
    project = server.projects.find(start) if start is not None else None
    choice = choose_version(
        requested=version or server.version_override,
        configured=server.settings.next_version,
        project=project,
        indexed=server.loader.indexed,
        latest=server.loader.latest,
    )
    chosen_router = router
    if chosen_router is None and server.settings.router != "auto":
        chosen_router = server.settings.router
    if chosen_router is None and project is not None and path is not None:
        chosen_router = project.router_for(path)
    return Target(
        version=choice.version if choice else None,
        router=chosen_router,
        reason=choice.reason if choice else "unknown",
        project=project,
        path=path,
    )


def require_version(target: Target) -> str:
    if target.version is not None:
        return target.version
    problem = target.project.problem if target.project is not None else None
    raise RagginError(
        "No Next.js version is known for this request"
        + (f" ({problem})" if problem else "")
        + ': pass "version", set raggin.nextVersion, or index a version with '
        "`raggin-lsp index <version>`."
    )

"""Diagnostics: deprecated, renamed or removed Next.js APIs in the open documents.

The findings come from :mod:`raggin_lsp.code.deprecations` and the API catalog of the
document's version (derived from its docs: neither the embedding model nor the index is
needed). Clients that can pull diagnostics (``textDocument/diagnostic``) pull them;
the others get ``textDocument/publishDiagnostics`` after ``didOpen`` and (debounced)
``didChange``. The ``diagnostics`` setting turns them off. A finding with a safe fix
also gives a ``quickfix`` code action that carries its diagnostic.
"""

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from raggin_lsp.code.deprecations import Finding, Fix, find_deprecations
from raggin_lsp.code.syntax import is_source_file
from raggin_lsp.corpus.apis import ApiCatalog
from raggin_lsp.corpus.urls import major_of, site_url
from raggin_lsp.server import targets

if TYPE_CHECKING:
    from raggin_lsp.server.server import RagginServer

log = logging.getLogger(__name__)

SOURCE = "raggin"
PUSH_DELAY = 0.3  # seconds of quiet typing before a push client gets new diagnostics


CatalogLoader = Callable[[str, Path | None], ApiCatalog]  # (version, workspace) -> catalog


def load_catalog(version: str, workspace: Path | None) -> ApiCatalog:
    """The catalog from the docs cache, else the project's ``node_modules``, else fetched."""
    from raggin_lsp.corpus.apis import load_catalog as load

    return load(version, workspace=workspace)


class Catalogs:
    """API catalogs by version, loaded in a thread once (by ``load``, :func:`load_catalog`
    unless told otherwise); a version that fails is not retried."""

    def __init__(self, load: CatalogLoader = load_catalog) -> None:
        self._load = load
        self._loaded: dict[str, ApiCatalog] = {}
        self._failed: set[str] = set()
        self._lock = asyncio.Lock()

    async def get(self, version: str, workspace: Path | None) -> ApiCatalog | None:
        if version in self._loaded or version in self._failed:
            return self._loaded.get(version)
        async with self._lock:
            if version not in self._loaded and version not in self._failed:
                try:
                    self._loaded[version] = await asyncio.to_thread(self._load, version, workspace)
                except Exception as error:  # offline, unknown version: no diagnostics
                    log.warning("No API catalog for Next.js %s: %s", version, error)
                    self._failed.add(version)
        return self._loaded.get(version)


def supports_pull(server: "RagginServer") -> bool:
    text_document = server.client_capabilities.text_document
    return bool(text_document and text_document.diagnostic)


def supports_rename(server: "RagginServer") -> bool:
    workspace = server.client_capabilities.workspace
    edit = workspace.workspace_edit if workspace else None
    operations = (edit.resource_operations or []) if edit else []
    return bool(edit and edit.document_changes and types.ResourceOperationKind.Rename in operations)


async def findings(server: "RagginServer", uri: str) -> tuple[str, list[Finding]]:
    """(version, findings) of an open document; none when diagnostics are off."""
    if not server.settings.diagnostics:
        return "", []
    document = server.workspace.get_text_document(uri)
    if not is_source_file(document.path):
        return "", []
    target = targets.resolve(server, uri, text=document.source)
    if target.version is None:
        return "", []
    root = target.project.root if target.project is not None else None
    catalog = await server.catalogs.get(target.version, root)
    if catalog is None:
        return "", []
    relative = _relative(target.path, root)
    found = await asyncio.to_thread(
        find_deprecations, catalog, document.source, document.path, relative
    )
    return target.version, found


def _relative(path: Path | None, root: Path | None) -> str | None:
    if path is None or root is None:
        return None
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def _range(finding: Finding) -> types.Range:
    span = finding.span
    return types.Range(types.Position(span.line, span.start), types.Position(span.line, span.end))


def to_diagnostic(finding: Finding, version: str, latest: str | None) -> types.Diagnostic:
    deprecation = finding.deprecation
    removed = deprecation.status == "removed"
    link = site_url(deprecation.page, version, major_of(latest) if latest else None)
    return types.Diagnostic(
        range=_range(finding),
        message=finding.message,
        severity=types.DiagnosticSeverity.Warning
        if removed
        else types.DiagnosticSeverity.Information,
        code=finding.code,
        code_description=types.CodeDescription(href=link),
        source=SOURCE,
        tags=None if removed else [types.DiagnosticTag.Deprecated],
    )


async def diagnostics(server: "RagginServer", uri: str) -> list[types.Diagnostic]:
    version, found = await findings(server, uri)
    return [to_diagnostic(finding, version, server.loader.latest) for finding in found]


async def pull(
    server: "RagginServer", params: types.DocumentDiagnosticParams
) -> types.RelatedFullDocumentDiagnosticReport:
    items = await diagnostics(server, params.text_document.uri)
    return types.RelatedFullDocumentDiagnosticReport(items=items)


async def publish(server: "RagginServer", uri: str) -> None:
    items = await diagnostics(server, uri)
    if server.connected:
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items)
        )


def schedule(server: "RagginServer", uri: str, delay: float = 0.0) -> None:
    """Publish a push client's diagnostics of ``uri`` after ``delay`` (the newest wins)."""
    if supports_pull(server):
        return
    pending = server.pending_diagnostics.pop(uri, None)
    if pending is not None:
        pending.cancel()

    async def later() -> None:
        await asyncio.sleep(delay)
        await publish(server, uri)

    server.pending_diagnostics[uri] = server.jobs.spawn(later(), name=f"diagnostics {uri}")


def clear(server: "RagginServer", uri: str) -> None:
    pending = server.pending_diagnostics.pop(uri, None)
    if pending is not None:
        pending.cancel()
    if not supports_pull(server) and server.connected:
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )


def refresh(server: "RagginServer") -> None:
    """After a settings change: ask pull clients to pull again, push to the others."""
    if supports_pull(server):
        workspace = server.client_capabilities.workspace
        diagnostic = workspace.diagnostics if workspace else None
        if diagnostic and diagnostic.refresh_support:
            server.workspace_diagnostic_refresh(None)
        return
    for uri in list(server.workspace.text_documents):
        schedule(server, uri)


async def quick_fixes(
    server: "RagginServer", uri: str, where: types.Range, given: list[types.Diagnostic]
) -> list[types.CodeAction]:
    """A ``quickfix`` action for each of our findings in ``where`` that has a fix."""
    version, found = await findings(server, uri)
    actions = []
    for finding in found:
        fix = finding.fix
        if fix is None or not _overlaps(_range(finding), where):
            continue
        edit = _workspace_edit(server, uri, fix)
        if edit is None:
            continue
        diagnostic = next(
            (d for d in given if d.source == SOURCE and d.range == _range(finding)),
            to_diagnostic(finding, version, server.loader.latest),
        )
        actions.append(
            types.CodeAction(
                title=fix.title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                is_preferred=True,
                edit=edit,
            )
        )
    return actions


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(position: types.Position) -> tuple[int, int]:
        return position.line, position.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _workspace_edit(server: "RagginServer", uri: str, fix: Fix) -> types.WorkspaceEdit | None:
    edits = [
        types.TextEdit(
            range=types.Range(
                types.Position(edit.span.line, edit.span.start),
                types.Position(edit.span.line, edit.span.end),
            ),
            new_text=edit.new_text,
        )
        for edit in fix.edits
    ]
    if fix.new_file_name is None:
        return types.WorkspaceEdit(changes={uri: edits})
    if not supports_rename(server):
        return None
    document = server.workspace.get_text_document(uri)
    new_uri = uri.rsplit("/", 1)[0] + "/" + fix.new_file_name
    changes: list[Any] = []
    if edits:
        changes.append(
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=uri, version=document.version
                ),
                edits=list(edits),
            )
        )
    changes.append(types.RenameFile(old_uri=uri, new_uri=new_uri))
    return types.WorkspaceEdit(document_changes=changes)

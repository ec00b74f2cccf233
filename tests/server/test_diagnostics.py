"""Deprecation diagnostics and their quick fixes over LSP, for a client that pulls them
(VS Code, Neovim 0.11) and one that is sent them (Neovim 0.7), with the real 16.2.0 API catalog.

The server's cache folder gets the real 16.2.0 docs (a link to the shared cache), so
the catalog is derived from them exactly as on a user's machine; the index and the
embedding model play no part (the fake Assistant never answers for diagnostics).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from raggin_lsp.changes import release_key
from raggin_lsp.corpus.fetch import ensure_docs
from tests.server.harness import Session, copy_fixture, lsp_session

FAKE_SERVER = [sys.executable, str(Path(__file__).with_name("fake_server.py"))]
VERSION = "16.2.0"  # the fixture project's installed version
GALLERY = "app/gallery.tsx"
GALLERY_TEXT = (
    "import Image from 'next/legacy/image'\n"
    "import { unstable_noStore } from 'next/cache'\n"
    "import Other from 'ui-kit/legacy/image'\n"
    "\n"
    "export default function Gallery() {\n"
    "  unstable_noStore()\n"
    "  return <Image src='/a.png' alt='' width={1} height={1} />\n"
    "}\n"
)
LEGACY = types.Range(types.Position(0, 18), types.Position(0, 37))


@pytest.fixture(scope="session")
def docs_entry() -> Path:
    return ensure_docs(VERSION)


@asynccontextmanager
async def start(
    tmp_path: Path, docs_entry: Path, client: str, **kwargs: Any
) -> AsyncIterator[Session]:
    project = copy_fixture(tmp_path)
    (project / GALLERY).write_text(GALLERY_TEXT, encoding="utf-8")
    (project / "middleware.ts").write_text("export function middleware() {}\n", encoding="utf-8")
    cache = tmp_path / "cache"
    (cache / "docs").mkdir(parents=True)
    (cache / "docs" / VERSION).symlink_to(docs_entry, target_is_directory=True)
    env = {
        "RAGGIN_FAKE": json.dumps({}),
        "RAGGIN_CACHE_DIR": str(cache),
        "RAGGIN_CONFIG_FILE": str(tmp_path / "no-user-config.yaml"),
    }
    async with lsp_session(FAKE_SERVER, project, env=env, client=client, **kwargs) as session:
        yield session


async def _diagnostics(session: Session, uri: str, pull: bool) -> list[types.Diagnostic]:
    if pull:
        report = await session.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri))
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        return list(report.items)
    # Pushed once the catalog is derived from the docs (seconds; more on a loaded machine).
    for _ in range(600):
        if uri in session.client.diagnostics:
            return list(session.client.diagnostics[uri])
        await asyncio.sleep(0.1)
    raise TimeoutError("no publishDiagnostics")


async def _quick_fixes(
    session: Session, uri: str, diagnostic: types.Diagnostic
) -> list[types.CodeAction]:
    actions = await session.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    return [a for a in actions or [] if isinstance(a, types.CodeAction) and a.edit is not None]


@pytest.mark.parametrize(
    ("client", "pull"),
    [
        pytest.param("visual_studio_code", True, id="vscode-pull"),
        pytest.param("neovim", True, id="neovim-0.11-pull"),
        pytest.param("neovim@v0.7.0", False, id="neovim-0.7-push"),
    ],
)
async def test_a_deprecated_import_gets_a_diagnostic_and_a_quick_fix(
    tmp_path: Path, docs_entry: Path, client: str, pull: bool
) -> None:
    async with start(tmp_path, docs_entry, client) as session:
        assert session.result.capabilities.diagnostic_provider is not None
        uri = session.open(GALLERY)
        found = await _diagnostics(session, uri, pull)
        by_label = {d.message.split("`")[1]: d for d in found}
        # Nothing on `ui-kit/legacy/image` nor on the later use of `unstable_noStore`.
        assert sorted(by_label) == ["next/legacy/image", "unstable_noStore"]
        legacy = by_label["next/legacy/image"]
        assert legacy.range == LEGACY
        assert legacy.source == "raggin"
        assert legacy.code == "deprecated-api"
        assert legacy.severity == types.DiagnosticSeverity.Information
        assert legacy.code_description is not None
        assert legacy.code_description.href == (
            "https://nextjs.org/docs/pages/api-reference/components/image-legacy"
        )
        assert "use `next/image` instead" in legacy.message

        [fix] = await _quick_fixes(session, uri, legacy)
        assert fix.kind == types.CodeActionKind.QuickFix
        assert fix.is_preferred
        assert list(fix.diagnostics or []) == [legacy]
        assert fix.edit is not None
        assert fix.edit.changes is not None
        [edit] = fix.edit.changes[uri]
        assert edit.new_text == "next/image"
        # connection() lives in another module: a diagnostic, but no fix.
        assert await _quick_fixes(session, uri, by_label["unstable_noStore"]) == []


async def test_the_middleware_file_is_renamed_for_a_client_with_resource_operations(
    tmp_path: Path, docs_entry: Path
) -> None:
    async with start(tmp_path, docs_entry, "visual_studio_code") as session:
        uri = session.open("middleware.ts")
        [diagnostic] = await _diagnostics(session, uri, pull=True)
        assert diagnostic.code == "renamed-api"
        [fix] = await _quick_fixes(session, uri, diagnostic)
        assert fix.edit is not None
        assert fix.edit.document_changes is not None
        edit, rename = fix.edit.document_changes
        assert isinstance(edit, types.TextDocumentEdit)
        assert [e.new_text for e in edit.edits] == ["proxy"]
        assert isinstance(rename, types.RenameFile)
        assert rename.new_uri == session.uri("proxy.ts")


async def test_the_setting_turns_them_off(tmp_path: Path, docs_entry: Path) -> None:
    async with start(
        tmp_path, docs_entry, "visual_studio_code", initialization_options={"diagnostics": False}
    ) as session:
        uri = session.open(GALLERY)
        assert await _diagnostics(session, uri, pull=True) == []


async def test_diff_reports_history_rows_of_the_documents_version(
    tmp_path: Path, docs_entry: Path
) -> None:
    async with start(tmp_path, docs_entry, "visual_studio_code") as session:
        answer = await session.request(
            "raggin/diff", {"since": "16.1.0", "textDocument": {"uri": session.uri(GALLERY)}}
        )
        assert answer["to"] == VERSION
        assert answer["changes"]
        keys = [release_key(change["version"]) for change in answer["changes"]]
        assert all(key is not None and (16, 1, 0) < key <= (16, 2, 0) for key in keys)
        # Only 16.2.0 is indexed: the content comparison says what to index.
        assert answer["content"]["compared"] is False
        assert answer["content"]["missing"] == ["16.1.0"]
        assert answer["content"]["commands"] == ["raggin-lsp index 16.1.0"]

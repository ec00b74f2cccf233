"""The server over LSP with a scripted Assistant: hover, code actions, streaming,
cancellation, errors and settings, as VS Code and Neovim would see them."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from raggin_lsp.corpus.fetch import ensure_docs
from tests.server.harness import Session, copy_fixture, lsp_session

FAKE_SERVER = [sys.executable, str(Path(__file__).with_name("fake_server.py"))]
CLIENTS = [
    pytest.param("visual_studio_code", id="vscode"),
    pytest.param("neovim", id="neovim"),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path)


@pytest.fixture(scope="session")
def docs_root() -> str:
    """The real 16.2.0 docs (cached; fetched from npm the first time)."""
    return str(ensure_docs("16.2.0"))


def server_env(tmp_path: Path, **script: Any) -> dict[str, str]:
    return {
        "RAGGIN_FAKE": json.dumps({"docs_root": DOCS_ROOT.get("path"), **script}),
        "RAGGIN_CACHE_DIR": str(tmp_path / "cache"),
        "RAGGIN_CONFIG_FILE": str(tmp_path / "no-user-config.yaml"),
    }


DOCS_ROOT: dict[str, str] = {}


@pytest.fixture(autouse=True)
def _real_docs(docs_root: str) -> None:
    DOCS_ROOT["path"] = docs_root


@asynccontextmanager
async def start(
    tmp_path: Path, project: Path, client: str = "visual_studio_code", **kwargs: Any
) -> AsyncIterator[Session]:
    script = kwargs.pop("script", {})
    async with lsp_session(
        FAKE_SERVER, project, env=server_env(tmp_path, **script), client=client, **kwargs
    ) as session:
        await session.loaded()
        yield session


@pytest.mark.parametrize("client", CLIENTS)
async def test_initialize_answers_before_the_model_loads_and_advertises_the_features(
    tmp_path: Path, project: Path, client: str
) -> None:
    # Loading takes 3 s here: an initialize that waited for it could not answer sooner.
    # (How fast initialize answers is measured by `make bench`, not asserted here.)
    async with start(tmp_path, project, client, script={"load_delay": 3.0}) as session:
        capabilities = session.result.capabilities
        assert session.initialize_seconds < 3.0
        assert capabilities.hover_provider
        assert capabilities.code_action_provider
        assert capabilities.execute_command_provider is not None
        assert set(capabilities.execute_command_provider.commands) >= {
            "raggin.ask",
            "raggin.search",
            "raggin.index",
            "raggin.selectVersion",
        }
        (token,) = session.tokens_titled("Loading Next.js docs index")
        reports = session.client.progress_reports[token]
        assert isinstance(reports[0], types.WorkDoneProgressBegin)
        assert isinstance(reports[-1], types.WorkDoneProgressEnd)
        assert "16.2.0" in (reports[-1].message or "")


@pytest.mark.parametrize("client", CLIENTS)
async def test_hover_shows_the_curated_page_for_the_installed_version(
    tmp_path: Path, project: Path, client: str
) -> None:
    async with start(tmp_path, project, client) as session:
        uri = session.open("app/actions.ts")
        hover = await session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=session.position_of("app/actions.ts", "revalidatePath('/blog')"),
            )
        )
        assert hover is not None
        assert isinstance(hover.contents, types.MarkupContent)
        text = hover.contents.value
        assert text.startswith("**Next.js 16.2.0 docs**")
        # The distractor ranked first; the hover still shows the revalidatePath page.
        assert "revalidatePath reference" in text
        assert "https://nextjs.org/docs/app/api-reference/functions/revalidatePath" in text


async def test_hover_on_an_ordinary_word_is_null_and_fast(tmp_path: Path, project: Path) -> None:
    async with start(tmp_path, project) as session:
        uri = session.open("app/actions.ts")
        started = time.perf_counter()
        hover = await session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=session.position_of("app/actions.ts", "formData.get"),
            )
        )
        assert hover is None
        assert time.perf_counter() - started < 0.5


async def test_exit_ends_the_server_while_an_api_catalog_is_still_being_built(
    tmp_path: Path, project: Path
) -> None:
    started = tmp_path / "catalog-build-started"
    script = {"catalog_delay": 60.0, "catalog_started": str(started)}
    # Neovim 0.7 gets pushed diagnostics: opening a file starts the API catalog build.
    async with start(tmp_path, project, "neovim@v0.7.0", script=script) as session:
        session.open("app/actions.ts")
        await session.wait_for(started.exists)
    # Leaving the session sends shutdown and exit, then fails unless the process ends
    # within 10 s: it must not wait for the build, which has a minute to go.


async def test_hover_on_a_version_not_indexed_starts_indexing_and_says_so(
    tmp_path: Path, project: Path
) -> None:
    async with start(tmp_path, project, script={"indexed": []}) as session:
        uri = session.open("app/page.tsx")
        hover = await session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=session.position_of("app/page.tsx", "'next/image'"),
            )
        )
        assert hover is not None
        assert "being indexed" in hover.contents.value  # type: ignore[union-attr]
        await session.wait_for(
            lambda: any(session.ended(t) for t in session.tokens_titled("Indexing Next.js 16.2.0"))
        )
        hover = await session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=session.position_of("app/page.tsx", "'next/image'"),
            )
        )
        assert hover is not None
        assert "/docs/app/api-reference/components/image" in hover.contents.value  # type: ignore[union-attr]


async def test_a_version_searchable_lexically_only_gets_hovers_and_code_actions(
    tmp_path: Path, project: Path
) -> None:
    script = {"indexed": [], "lexical": ["16.2.0"]}  # its dense pass is still running
    # light (the profile with a lexical pass); nothing makes it complete during the test
    options = {"profile": "light", "autoIndex": False}
    async with start(tmp_path, project, script=script, initialization_options=options) as session:
        uri = session.open("app/actions.ts")
        hover = await session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=session.position_of("app/actions.ts", "revalidatePath('/blog')"),
            )
        )
        assert hover is not None
        assert isinstance(hover.contents, types.MarkupContent)
        assert "revalidatePath reference" in hover.contents.value  # the section, found
        assert "not indexed" not in hover.contents.value

        line = session.position_of("app/actions.ts", "revalidatePath('/blog')").line
        actions = await session.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(
                    start=types.Position(line=line, character=0),
                    end=types.Position(line=line + 1, character=0),
                ),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        titles = [action.title for action in actions or []]
        assert "Explain with Next.js 16.2.0 docs" in titles
        assert "Index Next.js 16.2.0 docs" not in titles  # it answers already
        status = await session.request("raggin/status", None)
        assert status["upgrade"]["answering"] == [
            {"version": "16.2.0", "profile": "light", "stage": "lexical only, dense 40%"}
        ]


@pytest.mark.parametrize("client", CLIENTS)
async def test_code_actions_on_a_selection_and_on_a_raggin_comment(
    tmp_path: Path, project: Path, client: str
) -> None:
    async with start(tmp_path, project, client) as session:
        uri = session.open("app/page.tsx")
        comment = session.position_of("app/page.tsx", "// @raggin", 0)
        selection = types.Range(
            start=types.Position(line=comment.line + 1, character=0),
            end=types.Position(line=comment.line + 3, character=0),
        )
        actions = await session.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=selection,
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        titles = [action.title for action in actions or []]
        assert "Explain with Next.js 16.2.0 docs" in titles

        on_comment = await session.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(start=comment, end=comment),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        (ask,) = [a for a in on_comment or [] if a.title.startswith("Ask RAGGIN")]
        assert isinstance(ask, types.CodeAction)
        assert ask.command is not None
        assert ask.command.arguments is not None
        assert ask.command.arguments[0]["question"] == (
            "how do I make this page revalidate every 60 seconds?"
        )

        result = await session.command(ask.command.command, *ask.command.arguments)

        assert result["answer"].startswith("Use `revalidatePath` [1].")
        saved = Path(result["path"])
        assert saved.is_file()
        assert saved.is_relative_to(tmp_path / "cache" / "answers")
        assert "revalidatePath" in saved.read_text(encoding="utf-8")
        assert result["shown"] is True
        assert [d.uri for d in session.client.shown_documents] == [saved.as_uri()]


async def test_a_client_without_show_document_gets_a_message(tmp_path: Path, project: Path) -> None:
    async with start(tmp_path, project, "neovim@v0.7.0") as session:
        uri = session.open("app/actions.ts")
        result = await session.command(
            "raggin.search", {"query": "revalidatePath", "textDocument": {"uri": uri}}
        )
        assert result["shown"] is False
        assert result["results"][0]["version"] == "16.2.0"
        assert any("revalidatePath" in m.message for m in session.client.messages)


@pytest.mark.parametrize("client", CLIENTS)
async def test_ask_streams_progress_whose_messages_are_the_generated_text(
    tmp_path: Path, project: Path, client: str
) -> None:
    chunks = [f"word{i} " for i in range(30)] + ["[1]."]
    async with start(
        tmp_path, project, client, script={"chunks": chunks, "chunk_delay": 0.01}
    ) as session:
        uri = session.open("app/actions.ts")
        session.client.progress_reports["ask-1"] = []
        result = await session.request(
            "raggin/ask",
            {
                "question": "How do I purge the blog cache?",
                "textDocument": {"uri": uri},
                "workDoneToken": "ask-1",
            },
        )
        reports = session.client.progress_reports["ask-1"]
        begin, *middle, end = reports
        assert isinstance(begin, types.WorkDoneProgressBegin)
        assert begin.cancellable
        assert isinstance(end, types.WorkDoneProgressEnd)
        streamed = "".join(r.message or "" for r in middle)
        assert streamed == result["generated"] == "".join(chunks)
        assert streamed in result["answer"]
        # 31 chunks 10 ms apart arrive coalesced into far fewer reports.
        assert 2 <= len(middle) < 20
        assert result["citations"][0]["url"].startswith("https://nextjs.org/docs/")
        assert result["version"] == "16.2.0"


async def test_ask_without_a_token_uses_a_server_created_one(tmp_path: Path, project: Path) -> None:
    async with start(tmp_path, project) as session:
        result = await session.request("raggin/ask", {"question": "What is ISR?"})
        (token,) = session.tokens_titled("Asking the Next.js 16.2.0 docs")
        messages = [
            r.message or ""
            for r in session.client.progress_reports[token]
            if isinstance(r, types.WorkDoneProgressReport)
        ]
        assert "".join(messages) == result["generated"]


async def test_cancel_request_stops_the_answer_and_the_server_goes_on(
    tmp_path: Path, project: Path
) -> None:
    script = {"chunks": [f"t{i} " for i in range(100)], "chunk_delay": 0.05}
    async with start(tmp_path, project, script=script) as session:
        session.client.progress_reports["ask-c"] = []
        pending = asyncio.ensure_future(
            session.request(
                "raggin/ask", {"question": "Long one", "workDoneToken": "ask-c"}, "ask-cancel"
            )
        )
        await session.wait_for(lambda: len(session.client.progress_reports["ask-c"]) >= 2)
        cancelled_at = time.monotonic()
        session.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="ask-cancel"))

        with pytest.raises(JsonRpcException) as raised:
            await pending
        assert raised.value.code == types.LSPErrorCodes.RequestCancelled.value
        await session.wait_for(lambda: session.ended("ask-c"), timeout=2)
        assert time.monotonic() - cancelled_at < 0.5
        assert session.client.progress_reports["ask-c"][-1].message == "Cancelled"  # type: ignore[union-attr]

        status = await session.request("raggin/status", None)
        assert status["assistant"]["counters"]["asks_cancelled"] == 1
        again = await session.request("raggin/search", {"query": "revalidatePath"})
        assert again


async def test_progress_cancel_button_stops_a_command(tmp_path: Path, project: Path) -> None:
    script = {"chunks": [f"t{i} " for i in range(100)], "chunk_delay": 0.05}
    async with start(tmp_path, project, script=script) as session:
        pending = asyncio.ensure_future(session.command("raggin.ask", {"question": "Long"}))
        await session.wait_for(lambda: bool(session.tokens_titled("Asking")))
        (token,) = session.tokens_titled("Asking")
        session.client.window_work_done_progress_cancel(
            types.WorkDoneProgressCancelParams(token=token)
        )
        with pytest.raises(JsonRpcException):
            await pending
        await session.wait_for(lambda: session.ended(token), timeout=2)
        status = await session.request("raggin/status", None)
        assert status["assistant"]["counters"]["asks_cancelled"] == 1


async def test_cancelling_index_stops_between_batches(tmp_path: Path, project: Path) -> None:
    script = {"index_batches": 200, "batch_delay": 0.02}
    async with start(tmp_path, project, script=script) as session:
        session.client.progress_reports["idx"] = []
        pending = asyncio.ensure_future(
            session.request("raggin/index", {"version": "16.1.0", "workDoneToken": "idx"}, "idx-1")
        )
        await session.wait_for(
            lambda: any(
                isinstance(r, types.WorkDoneProgressReport) and (r.percentage or 0) > 20
                for r in session.client.progress_reports["idx"]
            )
        )
        session.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="idx-1"))
        with pytest.raises(JsonRpcException):
            await pending
        await session.wait_for(lambda: session.ended("idx"), timeout=3)
        status = await session.request("raggin/status", None)
        assert status["assistant"]["counters"]["index_stopped"] == 1
        assert "16.1.0" not in status["loading"]["indexedVersions"]


@pytest.mark.parametrize(
    ("method", "params", "code", "fragment"),
    [
        pytest.param(
            "raggin/ask",
            {"question": 3},
            -32602,
            "params.question: must be a string, got number",
            id="ask-type",
        ),
        pytest.param(
            "raggin/search",
            {"query": "x", "topK": "5"},
            -32602,
            "params.topK: must be an integer",
            id="search-type",
        ),
        pytest.param("raggin/search", ["x"], -32602, "params must be an object", id="search-array"),
        pytest.param(
            "raggin/search",
            {"query": "x", "version": "99.0.0"},
            -32803,
            "99.0.0",
            id="unknown-version",
        ),
        pytest.param(
            "raggin/removeVersion",
            {},
            -32602,
            "params.version: required field missing",
            id="remove-without-version",
        ),
    ],
)
async def test_malformed_requests_get_json_rpc_errors_and_the_server_goes_on(
    tmp_path: Path, project: Path, method: str, params: Any, code: int, fragment: str
) -> None:
    async with start(tmp_path, project) as session:
        with pytest.raises(JsonRpcException) as raised:
            await session.request(method, params)
        assert raised.value.code == code
        assert fragment in raised.value.message
        assert await session.request("raggin/search", {"query": "revalidatePath"})


async def test_not_indexed_without_auto_index_names_the_version_and_the_fix(
    tmp_path: Path, project: Path
) -> None:
    async with start(
        tmp_path, project, script={"indexed": ["16.4.6"]},
        initialization_options={"autoIndex": False},
    ) as session:  # fmt: skip
        with pytest.raises(JsonRpcException) as raised:
            await session.request("raggin/search", {"query": "revalidatePath"})
        message = raised.value.message
        assert "16.2.0" in message
        assert "raggin-lsp index 16.2.0" in message
        assert "raggin.index" in message


async def test_ask_errors_from_the_pipeline_are_shown_as_they_are(
    tmp_path: Path, project: Path
) -> None:
    error = 'The model "nope" is not installed in Ollama: run `ollama pull nope`.'
    async with start(tmp_path, project, script={"ask_error": error}) as session:
        with pytest.raises(JsonRpcException) as raised:
            await session.request("raggin/ask", {"question": "q", "model": "nope"})
        assert raised.value.message == error


async def test_invalid_settings_are_reported_once_and_the_previous_value_kept(
    tmp_path: Path, project: Path
) -> None:
    async with start(tmp_path, project, configuration={"raggin": {"topK": 3}}) as session:
        session.client.set_configuration({"topK": "lots"}, section="raggin")
        for _ in range(2):
            session.client.workspace_did_change_configuration(
                types.DidChangeConfigurationParams(settings=None)
            )
        status = await session.request("raggin/status", None)
        await asyncio.sleep(0)  # let both notifications be handled before counting
        status = await session.request("raggin/status", None)
        assert status["settings"]["topK"] == 3
        shown = [m.message for m in session.client.messages if "topK" in m.message]
        assert len(shown) == 1
        assert "expected an integer" in shown[0]


async def test_versions_reports_the_detected_project(tmp_path: Path, project: Path) -> None:
    async with start(tmp_path, project) as session:
        uri = session.open("app/page.tsx")
        versions = await session.request("raggin/versions", {"textDocument": {"uri": uri}})
        assert versions["selected"] == "16.2.0"
        assert versions["detected"]["installed"] == "16.2.0"
        assert versions["detected"]["declared"] == "^16.2.0"
        assert versions["router"] == "app"
        assert versions["indexed"] == ["16.2.0"]
        assert "16.4.6" in versions["known"]

        await session.command("raggin.selectVersion", "16.4.6")
        versions = await session.request("raggin/versions", {"textDocument": {"uri": uri}})
        assert versions["selected"] == "16.4.6"


NAV = """'use client'
import { usePathname } from 'next/navigation'
export function Nav() {
  const path = usePathname()
  return path
}
"""
PROXY = """import { NextResponse } from 'next/server'
export function proxy() {
  return NextResponse.next()
}
"""
CONFIG = """import type { NextConfig } from 'next'
const nextConfig: NextConfig = {
  basePath: '/docs',
}
export default nextConfig
"""
HOVER_KINDS = [
    pytest.param(
        "app/actions.ts", None, "revalidatePath('/blog')", "functions/revalidatePath", id="import"
    ),
    pytest.param(
        "app/nav.tsx",
        NAV,
        "usePathname()",
        "functions/use-pathname",
        id="hook-call",
    ),
    pytest.param(
        "proxy.ts",
        PROXY,
        "import",
        "file-conventions/proxy",
        id="proxy-file",
    ),
    pytest.param(
        "middleware.ts",
        "export function middleware() {}\n",
        "export",
        "file-conventions/proxy",
        id="middleware-file",
    ),
    pytest.param("app/actions.ts", None, "'use server'", "directives/use-server", id="directive"),
    pytest.param(
        "next.config.ts",
        CONFIG,
        "basePath",
        "config/next-config-js/basePath",
        id="config-key",
    ),
]


@pytest.mark.parametrize(("path", "text", "at", "page"), HOVER_KINDS)
async def test_hover_on_each_kind_links_the_catalog_page(
    tmp_path: Path, project: Path, path: str, text: str | None, at: str, page: str
) -> None:
    if text is not None:
        (project / path).write_text(text, encoding="utf-8")
    async with start(tmp_path, project) as session:
        uri = session.open(path)
        hover = await session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=session.position_of(path, at),
            )
        )
        assert hover is not None
        assert isinstance(hover.contents, types.MarkupContent)
        assert f"https://nextjs.org/docs/app/api-reference/{page}" in hover.contents.value
        if path == "middleware.ts":  # 16.2.0 documents it on the proxy page, as renamed
            assert "Use `proxy` instead" in hover.contents.value


async def test_a_failed_model_load_is_remembered_and_blocks_only_what_needs_the_model(
    tmp_path: Path, project: Path
) -> None:
    error = "Could not download BAAI/bge-m3 (scripted)"
    async with start(tmp_path, project, script={"load_error": error}) as session:
        status = await session.request("raggin/status", None)
        assert status["loading"]["state"] == "ready"
        assert status["loading"]["model"]["state"] == "failed"
        for _ in range(3):
            with pytest.raises(JsonRpcException) as raised:
                await session.request("raggin/search", {"query": "revalidatePath"})
            assert raised.value.code == -32803
            assert error in raised.value.message
            assert "raggin.retryModel" in raised.value.message
        versions = await session.request("raggin/versions", None)
        assert versions["indexed"] == ["16.2.0"]
        status = await session.request("raggin/status", None)
        assert status["loading"]["model"]["attempts"] == 1
        assert error in status["loading"]["model"]["error"]
        shown = [m.message for m in session.client.messages if error in m.message]
        assert len(shown) == 1
        with pytest.raises(JsonRpcException):
            await session.command("raggin.retryModel")
        status = await session.request("raggin/status", None)
        assert status["loading"]["model"]["attempts"] == 2

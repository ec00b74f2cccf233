"""End to end over stdio: ``python -m raggin_lsp serve`` on the fixture project, with the
light profile, a real index of the Next.js 16.2.0 docs and a fake Ollama.

The index is shared by the session: ``RAGGIN_TEST_INDEX_DIR`` when set, else the
``light_index_dir`` fixture of tests/conftest.py (built once with
``raggin-lsp index 16.2.0 --profile light`` and cached). The servers only read it.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.server.harness import Session, copy_fixture, lsp_session
from tests.support.fake_ollama import FakeOllama, FakeScript, closed_port_host

pytestmark = [pytest.mark.slow]

SERVER = [sys.executable, "-m", "raggin_lsp", "serve"]
VERSION = "16.2.0"
SITE = "https://nextjs.org/docs"
CLIENTS = [
    pytest.param("visual_studio_code", id="vscode"),
    pytest.param("neovim", id="neovim"),
]


@pytest.fixture(scope="session")
def index_dir(request: pytest.FixtureRequest) -> Path:
    shared = os.environ.get("RAGGIN_TEST_INDEX_DIR")
    return Path(shared) if shared else Path(request.getfixturevalue("light_index_dir"))


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    with FakeOllama(FakeScript(reply="echo", token_delay=0.005)) as fake:
        yield fake


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path)


@asynccontextmanager
async def serve(
    tmp_path: Path,
    project: Path,
    index_dir: Path,
    ollama_host: str,
    *,
    client: str = "visual_studio_code",
    **settings: Any,
) -> AsyncIterator[Session]:
    options = {
        "profile": "light",
        "qdrantPath": str(index_dir),
        "ollamaHost": ollama_host,
        "model": "qwen2.5-coder:7b",
        **settings,
    }
    env = {
        "RAGGIN_CONFIG_FILE": str(tmp_path / "no-user-config.yaml"),
        "RAGGIN_DATA_DIR": str(tmp_path / "data"),
    }
    if "RAGGIN_CACHE_DIR" not in os.environ:
        env["RAGGIN_CACHE_DIR"] = str(Path.home() / ".cache" / "raggin")
    async with lsp_session(
        SERVER, project, env=env, client=client, initialization_options=options
    ) as session:
        await session.loaded(timeout=300)
        await ensure_indexed(session)
        yield session


async def ensure_indexed(session: Session) -> None:
    status = await session.request("raggin/status", None)
    if VERSION not in status["loading"]["indexedVersions"]:
        await asyncio.wait_for(session.request("raggin/index", {"version": VERSION}), 1800)


def hover_text(hover: types.Hover | None) -> str:
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    return hover.contents.value


@pytest.mark.parametrize(
    ("relative", "needle", "page"),
    [
        pytest.param(
            "app/actions.ts",
            "revalidatePath('/blog')",
            "/app/api-reference/functions/revalidatePath",
            id="revalidatePath",
        ),
        pytest.param(
            "app/page.tsx",
            "'next/image'",
            "/app/api-reference/components/image",
            id="next-image",
        ),
    ],
)
async def test_hover_shows_the_right_page_for_the_installed_version(
    tmp_path: Path,
    project: Path,
    index_dir: Path,
    fake_ollama: FakeOllama,
    relative: str,
    needle: str,
    page: str,
) -> None:
    async with serve(tmp_path, project, index_dir, fake_ollama.host) as session:
        uri = session.open(relative)
        text = hover_text(
            await session.client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=session.position_of(relative, needle),
                )
            )
        )
        assert text.startswith(f"**Next.js {VERSION} docs**")
        assert f"]({SITE}{page}" in text
        assert not fake_ollama.chat_requests  # no LLM in a hover


@pytest.mark.parametrize("client", CLIENTS)
async def test_code_actions_and_running_one_gives_an_answer(
    tmp_path: Path, project: Path, index_dir: Path, fake_ollama: FakeOllama, client: str
) -> None:
    async with serve(tmp_path, project, index_dir, fake_ollama.host, client=client) as session:
        uri = session.open("app/page.tsx")
        comment = session.position_of("app/page.tsx", "// @raggin", 0)
        selection = types.Range(
            start=types.Position(line=comment.line + 1, character=0),
            end=types.Position(line=comment.line + 4, character=0),
        )
        explain = await session.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=selection,
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        assert f"Explain with Next.js {VERSION} docs" in [a.title for a in explain or []]

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

        result = await session.command(ask.command.command, *(ask.command.arguments or []))

        assert (
            "revalidate every 60 seconds"
            in fake_ollama.chat_requests[-1]["messages"][-1]["content"]
        )
        assert result["generated"]
        assert result["generated"] in result["answer"]
        assert Path(result["path"]).read_text(encoding="utf-8").count(result["generated"]) == 1


async def test_ask_streams_progress_that_adds_up_to_the_answer(
    tmp_path: Path, project: Path, index_dir: Path
) -> None:
    reply = [f"word{i} " for i in range(40)] + ["[1]."]
    with FakeOllama(FakeScript(reply=reply, token_delay=0.01)) as fake:
        async with serve(tmp_path, project, index_dir, fake.host) as session:
            uri = session.open("app/actions.ts")
            session.client.progress_reports["ask"] = []
            result = await session.request(
                "raggin/ask",
                {
                    "question": "How do I refresh the blog after a post is created?",
                    "textDocument": {"uri": uri},
                    "workDoneToken": "ask",
                },
            )
    reports = session.client.progress_reports["ask"]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    streamed = [r.message or "" for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert "".join(streamed) == result["generated"] == "".join(reply)
    assert result["generated"] in result["answer"]
    assert 2 <= len(streamed) < len(reply)  # coalesced, yet streamed
    assert result["version"] == VERSION
    assert result["citations"]
    assert all(
        c["url"].startswith(f"{SITE}/") and c["version"] == VERSION for c in result["citations"]
    )


async def test_cancelling_mid_stream_closes_the_ollama_stream(
    tmp_path: Path, project: Path, index_dir: Path
) -> None:
    with FakeOllama(FakeScript(reply=[f"t{i} " for i in range(200)], token_delay=0.05)) as fake:
        async with serve(tmp_path, project, index_dir, fake.host) as session:
            session.client.progress_reports["c"] = []
            pending = asyncio.ensure_future(
                session.request(
                    "raggin/ask", {"question": "Explain caching", "workDoneToken": "c"}, "ask-c"
                )
            )
            await session.wait_for(lambda: len(session.client.progress_reports["c"]) >= 3, 120)
            cancelled_at = time.monotonic()
            session.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="ask-c"))
            with pytest.raises(JsonRpcException):
                await pending
            assert fake.client_disconnected.wait(2)
            assert fake.disconnected_at is not None
            assert fake.disconnected_at - cancelled_at < 0.2
            await session.wait_for(lambda: session.ended("c"), 2)
            assert await session.request("raggin/search", {"query": "revalidatePath"})


async def test_cancelling_while_the_model_loads_closes_the_ollama_stream(
    tmp_path: Path, project: Path, index_dir: Path
) -> None:
    with FakeOllama(FakeScript(first_token_delay=60)) as fake:
        async with serve(tmp_path, project, index_dir, fake.host) as session:
            pending = asyncio.ensure_future(
                session.request("raggin/ask", {"question": "Explain caching"}, "ask-slow")
            )
            await session.wait_for(lambda: bool(fake.chat_requests), 60)
            session.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="ask-slow"))
            with pytest.raises(JsonRpcException) as raised:
                await asyncio.wait_for(pending, 10)
            assert raised.value.code == types.LSPErrorCodes.RequestCancelled
            assert await asyncio.to_thread(fake.client_disconnected.wait, 2)
            assert fake.completed_chats == 0
            assert await session.request("raggin/search", {"query": "revalidatePath"})


async def test_ollama_down_still_answers_from_the_docs_and_says_why(
    tmp_path: Path, project: Path, index_dir: Path
) -> None:
    host = closed_port_host()
    async with serve(tmp_path, project, index_dir, host) as session:
        result = await session.request("raggin/ask", {"question": "How does revalidatePath work?"})
    assert result["usedLlm"] is False
    assert "Ollama" in result["notice"]
    assert result["citations"]


@pytest.mark.parametrize(
    ("script", "model", "says", "model_text"),
    [
        pytest.param(
            FakeScript(reply=[f"w{i} " for i in range(20)], drop_after=5),
            "qwen2.5-coder:7b",
            "cut off",
            "w0 w1 w2 w3 w4 ",
            id="stream-dropped",
        ),
        pytest.param(FakeScript(reply="echo"), "nope:1b", "`ollama pull nope:1b`", "", id="404"),
    ],
)
async def test_a_failing_ollama_streams_why_then_the_docs(
    tmp_path: Path,
    project: Path,
    index_dir: Path,
    script: FakeScript,
    model: str,
    says: str,
    model_text: str,
) -> None:
    with FakeOllama(script) as fake:
        async with serve(tmp_path, project, index_dir, fake.host) as session:
            models = await session.request("raggin/models", None)
            assert models["models"] == ["qwen2.5-coder:7b"]
            session.client.progress_reports["f"] = []
            result = await asyncio.wait_for(
                session.request(
                    "raggin/ask",
                    {
                        "question": "How does revalidatePath work?",
                        "model": model,
                        "workDoneToken": "f",
                    },
                ),
                60,
            )
            assert await session.request("raggin/search", {"query": "revalidatePath"})
    reports = session.client.progress_reports["f"]
    streamed = "".join(
        r.message or "" for r in reports if isinstance(r, types.WorkDoneProgressReport)
    )
    assert streamed == result["generated"]
    assert says in result["notice"]
    note = f"> **Note:** {result['notice']}"
    assert streamed.startswith(model_text + ("\n\n" if model_text else "") + note)
    assert streamed.index(note) < streamed.index("**[1] [")  # then the docs, quoted
    assert result["usedLlm"] is bool(model_text)
    assert result["citations"]
    assert all(c["url"].startswith(f"{SITE}/") for c in result["citations"])
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert reports[-1].message == result["notice"]


@pytest.mark.parametrize(
    ("params", "code", "fragment"),
    [
        pytest.param(
            {"question": ["x"]}, -32602, "params.question: must be a string", id="wrong-type"
        ),
        pytest.param(
            {"question": "q", "history": [{"question": 1}]}, -32602, "history[0]", id="history"
        ),
        pytest.param(
            {"question": "q", "version": "99.1.0"}, -32803, "99.1.0", id="unknown-version"
        ),
    ],
)
async def test_malformed_requests_are_errors_and_the_server_keeps_serving(
    tmp_path: Path,
    project: Path,
    index_dir: Path,
    fake_ollama: FakeOllama,
    params: dict[str, Any],
    code: int,
    fragment: str,
) -> None:
    async with serve(tmp_path, project, index_dir, fake_ollama.host) as session:
        with pytest.raises(JsonRpcException) as raised:
            await session.request("raggin/ask", params)
        assert raised.value.code == code
        assert fragment in raised.value.message
        results = await session.request("raggin/search", {"query": "revalidatePath"})
        assert results[0]["version"] == VERSION
        status = await session.request("raggin/status", None)
        assert status["assistant"]["indexedVersions"] == [VERSION]
        assert status["assistant"]["ollamaReachable"] is True


async def test_two_clients_at_once_on_one_index(
    tmp_path: Path, project: Path, index_dir: Path, fake_ollama: FakeOllama
) -> None:
    async with (
        serve(tmp_path / "a", project, index_dir, fake_ollama.host) as first,
        serve(tmp_path / "b", project, index_dir, fake_ollama.host) as second,
    ):
        both = await asyncio.gather(
            first.request("raggin/search", {"query": "revalidatePath"}),
            second.request("raggin/search", {"query": "next/image"}),
        )
    assert all(results and results[0]["version"] == VERSION for results in both)

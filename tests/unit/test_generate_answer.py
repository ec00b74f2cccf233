"""answer_question against a fake Ollama server speaking the real wire format."""

import asyncio
import ssl
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from raggin_lsp.assistant import Assistant, AssistantConfig
from raggin_lsp.corpus.model import CodeSnippet
from raggin_lsp.generate import Answer, ContextItem, GenerationSettings, Turn
from raggin_lsp.generate.answer import answer_question
from raggin_lsp.generate.ollama_api import (
    OllamaUnreachableError,
    is_reachable,
    list_models,
    tls_context,
)
from raggin_lsp.retrieve.model import SearchResult
from raggin_lsp.retrieve.stages import NO_STAGES
from tests.support.fake_ollama import FakeOllama, FakeScript, closed_port_host

VERSION = "16.2.0"
GROUNDED = "_Grounded in the Next.js 16.2.0 docs._"


def result(slug: str, heading: tuple[str, ...], text: str, code: str = "") -> SearchResult:
    url_path = f"/docs/app/api-reference/functions/{slug}"
    return SearchResult(
        url=f"https://nextjs.org{url_path}#{heading[-1].lower()}",
        url_path=url_path,
        anchor=heading[-1].lower(),
        version=VERSION,
        title=heading[0],
        heading_path=heading,
        text=text,
        code=(CodeSnippet("ts", code),) if code else (),
        router="app",
        tag="docs",
        score=1.0,
    )


RESULTS = [
    result(
        "revalidatePath",
        ("revalidatePath", "Usage"),
        "Purge cached data for a path.\n\n```ts\nrevalidatePath('/blog')\n```",
        code="revalidatePath('/blog')",
    ),
    result("revalidateTag", ("revalidateTag", "Parameters"), "Purge cached data for a tag."),
    result("unstable_cache", ("unstable_cache", "Example"), "Cache the result of a function."),
]


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


async def ask(
    host: str,
    chunks: list[str] | None = None,
    *,
    results: Sequence[SearchResult] = RESULTS,
    settings: GenerationSettings | None = None,
    context: Sequence[ContextItem] = (),
    history: Sequence[Turn] = (),
) -> Answer:
    return await answer_question(
        "How do I refresh the blog page after a post?",
        results,
        version=VERSION,
        settings=settings or GenerationSettings(host=host),
        context=context,
        history=history,
        on_chunk=None if chunks is None else chunks.append,
    )


async def test_streamed_chunks_make_up_the_answer(fake: FakeOllama) -> None:
    tokens = ["Call ", "`revalidatePath('/blog')` ", "in the action [1]", "."]
    fake.script = FakeScript(reply=tokens, token_delay=0.05)
    chunks: list[str] = []
    arrivals: list[float] = []
    start = time.monotonic()

    def on_chunk(chunk: str) -> None:
        chunks.append(chunk)
        arrivals.append(time.monotonic() - start)

    answer = await answer_question(
        "How do I refresh the blog page?",
        RESULTS,
        version=VERSION,
        settings=GenerationSettings(host=fake.host),
        on_chunk=on_chunk,
    )

    assert chunks == tokens
    assert answer.generated == "".join(chunks)
    assert answer.text.startswith(answer.generated)
    assert GROUNDED in answer.text
    assert answer.used_llm
    assert answer.model == "qwen2.5-coder:7b"
    assert answer.notice is None
    # Passed on as they arrive, not all at the end.
    assert arrivals[-1] - arrivals[0] >= 0.1
    assert answer.timings["first_token_s"] <= answer.timings["total_s"]


async def test_cited_markers_become_citations_with_the_right_urls(fake: FakeOllama) -> None:
    fake.script = FakeScript(reply="Tag it [2], or cache the function [3].")

    answer = await ask(fake.host)

    assert [(c.n, c.url) for c in answer.citations] == [
        (2, RESULTS[1].url),
        (3, RESULTS[2].url),
    ]
    assert f"- [2] [revalidateTag — Parameters]({RESULTS[1].url})" in answer.text
    assert RESULTS[0].url not in answer.text


async def test_prompt_sent_to_ollama_carries_sources_context_history_and_options(
    fake: FakeOllama,
) -> None:
    options = {"temperature": 0.1, "num_ctx": 4096, "num_predict": None}  # None: unset
    settings = GenerationSettings(host=fake.host, options=options)
    history = [Turn("What is ISR?", "Incremental Static Regeneration [1].")]
    context = [ContextItem("app/blog/page.tsx", "export default async function Blog() {}", "tsx")]

    await ask(fake.host, settings=settings, history=history, context=context)

    (request,) = fake.chat_requests
    assert request["model"] == "qwen2.5-coder:7b"
    assert request["stream"] is True
    assert request["options"] == {"temperature": 0.1, "num_ctx": 4096}
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert "Next.js 16.2.0" in request["messages"][0]["content"]
    assert request["messages"][1]["content"] == "What is ISR?"
    prompt = request["messages"][-1]["content"]
    for n, source in enumerate(RESULTS, start=1):
        assert f"[{n}] {source.heading}\nURL: {source.url}" in prompt
    assert "export default async function Blog() {}" in prompt


async def test_ollama_down_gives_an_extractive_answer_with_a_fix() -> None:
    chunks: list[str] = []

    answer = await ask(closed_port_host(), chunks)

    assert not answer.used_llm
    assert answer.model is None
    assert answer.notice is not None
    assert "ollama serve" in answer.notice
    assert "ollamaHost" in answer.notice
    assert "".join(chunks) == answer.generated  # streaming clients still see it
    assert chunks[0].startswith(f"> **Note:** {answer.notice}")  # the why, first
    assert "> Purge cached data for a path." in answer.generated
    assert RESULTS[0].url in answer.text
    assert GROUNDED in answer.text
    assert "Traceback" not in answer.text


async def test_missing_model_gives_an_extractive_answer_naming_ollama_pull(
    fake: FakeOllama,
) -> None:
    settings = GenerationSettings(host=fake.host, model="llama3.2:1b")
    chunks: list[str] = []

    answer = await ask(fake.host, chunks, settings=settings)

    assert not answer.used_llm
    assert answer.notice is not None
    assert "`ollama pull llama3.2:1b`" in answer.notice
    assert "".join(chunks) == answer.generated
    assert answer.notice in answer.text
    assert GROUNDED in answer.text


async def test_stream_dropped_mid_answer_keeps_the_partial_text_then_quotes_the_docs(
    fake: FakeOllama,
) -> None:
    fake.script = FakeScript(
        reply="Use revalidatePath [1] in a Server Action after saving.", drop_after=4
    )
    chunks: list[str] = []

    answer = await ask(fake.host, chunks)

    assert answer.used_llm
    assert chunks[:4] == ["Use ", "revalidatePath ", "[1] ", "in "]
    assert answer.generated == "".join(chunks)
    assert answer.notice is not None
    assert "cut off" in answer.notice
    assert answer.generated.startswith(f"Use revalidatePath [1] in \n\n> **Note:** {answer.notice}")
    assert "> Purge cached data for a path." in answer.generated  # the docs, quoted
    assert answer.text.startswith(answer.generated.rstrip())
    assert [c.n for c in answer.citations] == [1, 2, 3]
    assert GROUNDED in answer.text


async def test_ollama_error_mid_stream_keeps_the_partial_text_and_says_why(
    fake: FakeOllama,
) -> None:
    fake.script = FakeScript(reply="Use revalidatePath [1] in an action.", error_after=2)

    answer = await ask(fake.host)

    assert answer.generated.startswith("Use revalidatePath \n\n> **Note:** The answer was cut off")
    assert answer.notice is not None
    assert "cut off" in answer.notice
    assert "model runner has unexpectedly stopped" in answer.notice


async def test_stream_dropped_before_any_token_falls_back_to_the_docs(fake: FakeOllama) -> None:
    fake.script = FakeScript(reply="Never sent.", drop_after=0)
    chunks: list[str] = []

    answer = await ask(fake.host, chunks)

    assert not answer.used_llm
    assert "".join(chunks) == answer.generated
    assert RESULTS[0].url in answer.generated


async def test_length_limit_is_reported_as_cut_off(fake: FakeOllama) -> None:
    fake.script = FakeScript(reply="A long answer [1]", done_reason="length")

    answer = await ask(fake.host)

    assert answer.notice is not None
    assert "num_predict" in answer.notice


async def test_empty_model_reply_falls_back_to_the_docs(fake: FakeOllama) -> None:
    fake.script = FakeScript(reply=[])

    answer = await ask(fake.host)

    assert not answer.used_llm
    assert answer.notice is not None
    assert "empty" in answer.notice
    assert RESULTS[0].url in answer.text


async def test_no_results_does_not_call_the_model(fake: FakeOllama) -> None:
    chunks: list[str] = []

    answer = await ask(fake.host, chunks, results=[])

    assert fake.chat_requests == []
    assert "No matching sections were found in the Next.js 16.2.0 docs" in answer.text
    assert GROUNDED in answer.text
    assert answer.citations == []
    assert not answer.used_llm
    assert chunks == [answer.generated]


async def test_cancelling_closes_the_ollama_stream_promptly(fake: FakeOllama) -> None:
    fake.script = FakeScript(reply=["token "] * 400, token_delay=0.05)
    first_chunk = asyncio.Event()

    task = asyncio.create_task(
        answer_question(
            "Explain caching",
            RESULTS,
            version=VERSION,
            settings=GenerationSettings(host=fake.host),
            on_chunk=lambda _chunk: first_chunk.set(),
        )
    )
    await asyncio.wait_for(first_chunk.wait(), timeout=5)
    cancelled_at = time.monotonic()
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(fake.client_disconnected.wait, 2)
    assert fake.disconnected_at is not None
    assert fake.disconnected_at - cancelled_at < 0.2
    assert fake.completed_chats == 0


async def test_failing_chunk_callback_still_closes_the_stream(fake: FakeOllama) -> None:
    fake.script = FakeScript(reply=["token "] * 400, token_delay=0.05)

    def on_chunk(_chunk: str) -> None:
        raise RuntimeError("client went away")

    with pytest.raises(RuntimeError, match="client went away"):
        await answer_question(
            "Explain caching",
            RESULTS,
            version=VERSION,
            settings=GenerationSettings(host=fake.host),
            on_chunk=on_chunk,
        )
    assert await asyncio.to_thread(fake.client_disconnected.wait, 0.5)


async def test_list_models_reads_the_installed_models(fake: FakeOllama) -> None:
    fake.script = FakeScript(models=["qwen2.5-coder:7b", "llama3.2:1b", "deepseek-r1:8b"])

    assert await list_models(fake.host) == ["deepseek-r1:8b", "llama3.2:1b", "qwen2.5-coder:7b"]
    assert await is_reachable(fake.host)


async def test_list_models_on_a_closed_port_says_how_to_start_ollama() -> None:
    host = closed_port_host()

    with pytest.raises(OllamaUnreachableError, match="ollama serve"):
        await list_models(host)
    assert not await is_reachable(host)


def test_every_ollama_client_shares_one_verifying_tls_context() -> None:
    """Built once (it reads the CA bundle) and never loosened: https hosts stay checked."""
    context = tls_context()
    assert tls_context() is context
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname


def test_the_assistant_warm_up_prepares_the_tls_context_before_the_first_ask(
    tmp_path: Path,
) -> None:
    """The language server warms up in the background: the first ask must not build it."""
    tls_context.cache_clear()
    assistant = Assistant(
        AssistantConfig(profile="light", qdrant_path=tmp_path / "qdrant", stages=NO_STAGES)
    )
    assistant.warm_up()
    assert tls_context.cache_info().currsize == 1

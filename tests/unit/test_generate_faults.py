"""What the user gets when Ollama misbehaves: a note saying what went wrong and what to do,
streamed, then the docs quoted with citations; never a hang.

Each fault is one :class:`~tests.support.fake_ollama.FakeScript` of the fake server
speaking Ollama's wire format (or a closed port), so the real ``ollama`` client and
httpx meet the fault exactly as they would meet a misbehaving Ollama.
"""

import asyncio

import pytest

from raggin_lsp.generate import Answer, GenerationSettings
from raggin_lsp.generate.answer import answer_question
from tests.support.fake_ollama import FakeOllama, FakeScript, closed_port_host
from tests.unit.test_generate_answer import GROUNDED, RESULTS, VERSION

QUESTION = "How do I refresh the blog page after a post?"
QUOTED = "> Purge cached data for a path."  # how the extractive answer quotes source [1]
SLOW_START = 30.0  # seconds the slow model takes to its first token
TIMEOUT = 0.3  # the first-token timeout the tests give the generator


async def answer_with(
    script: FakeScript | None, *, model: str = "qwen2.5-coder:7b", timeout: float = TIMEOUT
) -> tuple[Answer, list[str], FakeOllama | None]:
    """Ask with Ollama behaving as ``script`` (None: nothing listens)."""
    chunks: list[str] = []
    if script is None:
        settings = GenerationSettings(host=closed_port_host(), first_token_timeout=TIMEOUT)
        answer = await answer_question(
            QUESTION, RESULTS, version=VERSION, settings=settings, on_chunk=chunks.append
        )
        return answer, chunks, None
    with FakeOllama(script) as fake:
        settings = GenerationSettings(host=fake.host, model=model, first_token_timeout=timeout)
        answer = await asyncio.wait_for(
            answer_question(
                QUESTION, RESULTS, version=VERSION, settings=settings, on_chunk=chunks.append
            ),
            timeout=SLOW_START / 2,  # a hang fails the test instead of stalling the run
        )
        return answer, chunks, fake


async def request_arrived(fake: FakeOllama) -> None:
    while not fake.chat_requests:
        await asyncio.sleep(0.01)


FAULTS = [
    pytest.param(None, "qwen2.5-coder:7b", ["ollama serve", "ollamaHost"], "", id="refused"),
    pytest.param(
        FakeScript(reply="Call revalidatePath [1] after saving the post.", drop_after=3),
        "qwen2.5-coder:7b",
        ["cut off", "connection to Ollama broke", "ask again"],
        "Call revalidatePath [1] ",
        id="dropped-after-3-tokens",
    ),
    pytest.param(
        FakeScript(),
        "llama3.2:1b",
        ["`ollama pull llama3.2:1b`"],
        "",
        id="model-404",
    ),
    pytest.param(
        FakeScript(first_token_delay=SLOW_START),
        "qwen2.5-coder:7b",
        [f"no answer within {TIMEOUT:g} s", "qwen2.5-coder:7b", "smaller model"],
        "",
        id="slow-first-token",
    ),
    pytest.param(
        FakeScript(reply="Call revalidatePath [1].", malformed_after=0),
        "qwen2.5-coder:7b",
        ["could not be read"],
        "",
        id="malformed-first-line",
    ),
    pytest.param(
        FakeScript(reply="Call revalidatePath [1] after saving.", malformed_after=2),
        "qwen2.5-coder:7b",
        ["cut off", "could not be read"],
        "Call revalidatePath ",
        id="malformed-after-2-tokens",
    ),
    pytest.param(
        FakeScript(reply="Call revalidatePath [1].", malformed_after=1, malformed_line="[1, 2]"),
        "qwen2.5-coder:7b",
        ["cut off", "could not be read"],
        "Call ",
        id="json-that-is-not-a-message",
    ),
]


@pytest.mark.parametrize(("script", "model", "says", "model_text"), FAULTS)
async def test_each_fault_streams_a_note_and_the_docs_with_citations(
    script: FakeScript | None, model: str, says: list[str], model_text: str
) -> None:
    answer, chunks, _fake = await answer_with(script, model=model)

    streamed = "".join(chunks)
    assert streamed == answer.generated
    assert answer.notice is not None
    for fragment in says:
        assert fragment in answer.notice
    # The note reaches streaming clients, after what the model said and before the quotes.
    note = f"> **Note:** {answer.notice}"
    assert streamed.startswith(model_text + ("\n\n" if model_text else "") + note)
    assert streamed.index(note) < streamed.index(QUOTED)
    assert answer.used_llm is bool(model_text)
    assert [c.url for c in answer.citations][:2] == [RESULTS[0].url, RESULTS[1].url]
    assert RESULTS[0].url in answer.text
    assert GROUNDED in answer.text
    assert answer.text.count(answer.notice) == 1
    assert "Traceback" not in answer.text


async def test_the_slow_first_token_closes_the_ollama_stream() -> None:
    with FakeOllama(FakeScript(first_token_delay=SLOW_START)) as fake:
        settings = GenerationSettings(host=fake.host, first_token_timeout=TIMEOUT)
        answer = await asyncio.wait_for(
            answer_question(QUESTION, RESULTS, version=VERSION, settings=settings),
            timeout=SLOW_START / 2,
        )
        # Ollama sees the disconnect and stops working on a question nobody waits for.
        assert await asyncio.to_thread(fake.client_disconnected.wait, 2)
        assert fake.completed_chats == 0
    assert not answer.used_llm


async def test_a_slow_model_that_started_answering_is_not_cut_by_the_first_token_timeout() -> None:
    tokens = ["Call ", "revalidatePath ", "[1]", "."]
    # The first token comes in time; the whole answer takes longer than the timeout.
    script = FakeScript(reply=tokens, token_delay=0.4)
    answer, chunks, _fake = await answer_with(script, timeout=1.0)

    assert chunks == tokens
    assert answer.notice is None
    assert answer.used_llm


async def test_cancelling_while_waiting_for_the_first_token_closes_the_stream() -> None:
    with FakeOllama(FakeScript(first_token_delay=SLOW_START)) as fake:
        settings = GenerationSettings(host=fake.host)  # the default timeout: it never fires
        task = asyncio.create_task(
            answer_question(QUESTION, RESULTS, version=VERSION, settings=settings)
        )
        await asyncio.wait_for(request_arrived(fake), timeout=5)
        task.cancel()

        with pytest.raises(asyncio.CancelledError):
            await task
        assert await asyncio.to_thread(fake.client_disconnected.wait, 2)
        assert fake.completed_chats == 0

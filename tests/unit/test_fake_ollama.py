"""The fake Ollama server is read by the real ``ollama`` client exactly like Ollama."""

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import ollama
import pytest

from tests.support.fake_ollama import FakeOllama, FakeScript, split_tokens

REPO = Path(__file__).resolve().parents[2]
MODEL = "qwen2.5-coder:7b"
QUESTION = [{"role": "user", "content": "Sources...\n\nQuestion: What is a layout?"}]


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(FakeScript(reply=["A layout ", "wraps ", "pages [1]."])) as server:
        yield server


async def test_streamed_chat_parses_into_chat_responses(fake: FakeOllama) -> None:
    client = ollama.AsyncClient(host=fake.host)
    parts = [part async for part in await client.chat(model=MODEL, messages=QUESTION, stream=True)]

    assert [p.message.content for p in parts] == ["A layout ", "wraps ", "pages [1].", ""]
    assert all(p.model == MODEL and p.message.role == "assistant" for p in parts)
    assert [p.done for p in parts] == [False, False, False, True]
    final = parts[-1]
    assert final.done_reason == "stop"
    assert final.eval_count == 3
    assert final.total_duration is not None
    assert final.total_duration > 0


async def test_non_streamed_chat_returns_the_whole_message(fake: FakeOllama) -> None:
    client = ollama.AsyncClient(host=fake.host)

    response = await client.chat(model=MODEL, messages=QUESTION, stream=False)

    assert response.message.content == "A layout wraps pages [1]."
    assert response.done


async def test_models_list_parses_with_details(fake: FakeOllama) -> None:
    listing = await ollama.AsyncClient(host=fake.host).list()

    (model,) = listing.models
    assert model.model == MODEL
    assert model.details is not None
    assert model.details.family == "qwen2"
    assert model.size is not None
    assert model.modified_at is not None


@pytest.mark.parametrize(
    "stream", [pytest.param(True, id="stream"), pytest.param(False, id="whole")]
)
async def test_missing_model_is_a_404_response_error(fake: FakeOllama, stream: bool) -> None:
    client = ollama.AsyncClient(host=fake.host)

    async def chat() -> None:
        if stream:
            [part async for part in await client.chat("nope:1b", QUESTION, stream=True)]
        else:
            await client.chat("nope:1b", QUESTION, stream=False)

    with pytest.raises(ollama.ResponseError) as raised:
        await chat()

    assert raised.value.status_code == 404
    assert raised.value.error == 'model "nope:1b" not found, try pulling it first'


def test_version_and_root_answer_like_ollama(fake: FakeOllama) -> None:
    assert httpx.get(f"{fake.host}/api/version").json()["version"]
    assert httpx.get(fake.host).text == "Ollama is running"


async def test_echo_reply_repeats_the_question_and_cites_the_first_source(fake: FakeOllama) -> None:
    fake.script = FakeScript(reply="echo")
    client = ollama.AsyncClient(host=fake.host)

    response = await client.chat(model=MODEL, messages=QUESTION, stream=False)

    assert response.message.content == "Echo [1]: Question: What is a layout?"
    assert fake.chat_requests[-1]["messages"] == QUESTION


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Use a layout [1].", id="sentence"),
        pytest.param("  leading and\n\ntrailing  ", id="whitespace"),
        pytest.param("", id="empty"),
    ],
)
def test_split_tokens_concatenates_back(text: str) -> None:
    assert "".join(split_tokens(text)) == text


def test_runs_as_a_process_and_records_requests(tmp_path: Path) -> None:
    record = tmp_path / "requests.jsonl"
    config = json.dumps({"reply": "echo", "models": [MODEL]})
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.support.fake_ollama",
            "--port",
            "0",
            "--config",
            config,
            "--record",
            str(record),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        ready = process.stdout.readline().split()
        assert ready[0] == "READY"
        host = ready[1]

        with ollama.Client(host=host) as client:
            response = client.chat(model=MODEL, messages=QUESTION)

        assert response.message.content == "Echo [1]: Question: What is a layout?"
        lines = [json.loads(line) for line in record.read_text().splitlines()]
        assert lines[-1]["path"] == "/api/chat"
        assert lines[-1]["body"]["messages"] == QUESTION
    finally:
        process.terminate()
        process.wait(timeout=5)

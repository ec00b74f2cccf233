"""End to end over stdio: the default ``bge-m3`` profile on a machine that cannot download
it. Nothing that needs no embedding model waits for the download, and the failure is
reported once, remembered and not retried on every request.

The Hugging Face Hub is a local stand-in that answers 500 and counts the requests
(:class:`~tests.support.fake_hub.FakeHub`), so the download fails as it does offline,
deterministically; fastembed's own retries make one failed fetch last about 12 s.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from tests.server.harness import Session, copy_fixture, lsp_session
from tests.support.fake_hub import FakeHub
from tests.support.fake_ollama import FakeOllama, FakeScript

pytestmark = [pytest.mark.slow]

SERVER = [sys.executable, "-m", "raggin_lsp", "serve"]
REPO = "BAAI/bge-m3"
AT_ONCE = 3.0  # seconds: an answer that waited on a download would take 12 s or more
REQUEST_FAILED = -32803
UNAVAILABLE = "bge-m3 embedding model is not available"


@asynccontextmanager
async def serve_bge_m3(tmp_path: Path, hub: FakeHub, ollama: FakeOllama) -> AsyncIterator[Session]:
    """The server on a fresh home: empty data and cache folders, no model, no index."""
    env = {
        "RAGGIN_CONFIG_FILE": str(tmp_path / "no-user-config.yaml"),
        "RAGGIN_DATA_DIR": str(tmp_path / "data"),
        "RAGGIN_CACHE_DIR": str(tmp_path / "cache"),
        "HF_HOME": str(tmp_path / "hf"),
        "HF_ENDPOINT": hub.endpoint,
        "HF_HUB_OFFLINE": "0",  # the hub is asked (and refuses), whatever the caller set
    }
    options = {"profile": "bge-m3", "ollamaHost": ollama.host, "autoIndex": False}
    async with lsp_session(
        SERVER, copy_fixture(tmp_path), env=env, initialization_options=options
    ) as session:
        yield session


async def timed(call: Awaitable[Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = await call
    return result, time.perf_counter() - started


async def test_a_failed_model_download_blocks_nothing_and_is_tried_once(
    tmp_path: Path,
) -> None:
    with FakeHub() as hub, FakeOllama(FakeScript(reply="echo")) as ollama:
        async with serve_bge_m3(tmp_path, hub, ollama) as session:
            # While the download is being tried (and retried by fastembed for ~12 s):
            for method in ("raggin/versions", "raggin/status", "raggin/models"):
                _, seconds = await timed(session.request(method, None))
                assert seconds < AT_ONCE, f"{method} waited {seconds:.1f} s"
            status = await session.request("raggin/status", None)
            assert status["loading"]["state"] == "ready"  # the index opened without a model
            assert status["loading"]["model"]["state"] == "loading"

            await session.loaded(timeout=120)  # the load ends: the model failed
            tries = hub.model_requests(REPO)
            assert tries > 0
            shown = [m.message for m in session.client.messages if UNAVAILABLE in m.message]
            assert len(shown) == 1
            assert "'light'" in shown[0]
            assert "raggin.modelPath" in shown[0]

            # What needs the model fails at once with the remembered failure...
            for method, params in (
                ("raggin/search", {"query": "revalidatePath", "version": "16.2.0"}),
                ("raggin/index", {"version": "16.2.0"}),
            ):
                with pytest.raises(JsonRpcException) as raised:
                    await asyncio.wait_for(session.request(method, params), AT_ONCE)
                assert raised.value.code == REQUEST_FAILED
                assert UNAVAILABLE in raised.value.message
                assert "raggin.retryModel" in raised.value.message
            # ... and what does not still answers at once.
            versions, seconds = await timed(session.request("raggin/versions", None))
            assert seconds < AT_ONCE
            assert "16.2.0" in versions["known"]
            models, seconds = await timed(session.request("raggin/models", None))
            assert seconds < AT_ONCE
            assert models["models"]
            status, seconds = await timed(session.request("raggin/status", None))
            assert seconds < AT_ONCE
            model = status["loading"]["model"]
            assert model["state"] == "failed"
            assert "Could not download BAAI/bge-m3" in model["error"]
            assert model["attempts"] == 1
            assert model["retryInSeconds"] > 60

            # Nothing retried the download, and the failure was shown once.
            assert hub.model_requests(REPO) == tries
            shown = [m.message for m in session.client.messages if UNAVAILABLE in m.message]
            assert len(shown) == 1

            # Retrying is the user's call: the command tries once more, and says so.
            with pytest.raises(JsonRpcException) as raised:
                await asyncio.wait_for(session.command("raggin.retryModel"), 120)
            assert UNAVAILABLE in raised.value.message
            assert hub.model_requests(REPO) > tries
            status = await session.request("raggin/status", None)
            assert status["loading"]["model"]["attempts"] == 2

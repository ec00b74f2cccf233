"""Profiles that upgrade, end to end over stdio: with ``profile: bge-m3`` the light index
answers until the bge-m3 index of the version is complete, then the server switches to
it by itself, without a restart, and says so once; when bge-m3 cannot load, one message
says what to do and every answer comes from light.

bge-m3 is a tiny random-weight model of the real layout (``build_tiny_bge_m3``, 1024-d
like the real one, so the profile's index takes its vectors), given as
``raggin.modelPath``. The server is ``tests.support.gated_server``: its index jobs hold
their dense pass until a file exists, so the test sees the light index answer before
anything of bge-m3 is stored (no race against the clock). The docs are the small fixture
tree, installed in the fixture project's ``node_modules/next/dist/docs`` as 16.2.0's.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from raggin_lsp import paths
from tests.server.harness import Session, copy_fixture, lsp_session
from tests.support.fake_ollama import closed_port_host
from tests.support.tiny_models import build_tiny_bge_m3

pytestmark = [pytest.mark.slow]

VERSION = "16.2.0"
FIXTURE_DOCS = Path(__file__).parents[1] / "fixtures" / "docs" / "tree" / "docs"
QUERY = "widgets server components"
SWITCHED = f"Next.js {VERSION} is now answered from its bge-m3 index"
UNAVAILABLE = "bge-m3 embedding model is not available"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = copy_fixture(tmp_path)
    shutil.copytree(FIXTURE_DOCS, root / "node_modules" / "next" / "dist" / "docs")
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A fresh home whose cache holds the light model and the release list only."""
    cache = tmp_path / "cache"
    for name in ("models", "catalog"):
        if (paths.cache_dir() / name).is_dir():
            shutil.copytree(paths.cache_dir() / name, cache / name)
    return {
        "RAGGIN_CONFIG_FILE": str(tmp_path / "no-user-config.yaml"),
        "RAGGIN_DATA_DIR": str(tmp_path / "data"),
        "RAGGIN_CACHE_DIR": str(cache),
        "HF_HUB_OFFLINE": "1",
    }


def _options(tmp_path: Path, model_path: Path) -> dict[str, Any]:
    return {
        "profile": "bge-m3",
        "modelPath": str(model_path),
        "qdrantPath": str(tmp_path / "qdrant"),
        "ollamaHost": closed_port_host(),
        "autoIndex": True,
    }


async def _ask(session: Session) -> dict[str, Any]:
    """An answer without Ollama (nothing listens there): it quotes the sections found."""
    answer = await asyncio.wait_for(
        session.request("raggin/ask", {"question": QUERY, "version": VERSION}), 300
    )
    return dict(answer)


async def _search(session: Session) -> list[dict[str, Any]]:
    results = await asyncio.wait_for(
        session.request("raggin/search", {"query": QUERY, "version": VERSION}), 300
    )
    assert results, "the search found nothing"
    return list(results)


def _shown(session: Session, text: str) -> list[str]:
    return [m.message for m in session.client.messages if text in m.message]


async def test_light_answers_until_the_bge_m3_index_is_complete_then_bge_m3_without_a_restart(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    tiny = build_tiny_bge_m3(tmp_path / "bge-m3", hidden_size=1024, max_positions=1024)
    gate = tmp_path / "let-the-dense-pass-go"
    server = [sys.executable, "-m", "tests.support.gated_server", str(gate)]
    options = _options(tmp_path, tiny.folder)
    async with lsp_session(server, project, env=env, initialization_options=options) as session:
        try:
            await session.loaded(timeout=300)
            before = await _search(session)
            asked = await _ask(session)
            status = await session.request("raggin/status", None)
        finally:
            gate.touch()  # a held job would keep the server from exiting

        # Nothing of bge-m3 is stored yet: the light index answers, and says so.
        assert {r["profile"] for r in before} == {"light"}
        assert {r["indexStage"] for r in before} == {"lexical only, dense 0%"}
        assert "widgets" in before[0]["urlPath"]
        assert (asked["profile"], asked["indexStage"]) == ("light", "lexical only, dense 0%")
        assert status["upgrade"]["answering"] == [
            {"version": VERSION, "profile": "light", "stage": "lexical only, dense 0%"}
        ]
        assert status["upgrade"]["upgrading"] == [VERSION]
        assert status["loading"]["indexedVersions"] == []  # bge-m3's
        assert status["loading"]["model"]["state"] == "ready"
        assert not _shown(session, SWITCHED)

        # The light dense pass ends, the bge-m3 index is built: the server switches.
        await session.wait_for(lambda: bool(_shown(session, SWITCHED)), 600)
        after = await _search(session)
        asked = await _ask(session)
        status = await session.request("raggin/status", None)

        assert {r["profile"] for r in after} == {"bge-m3"}
        assert {r["indexStage"] for r in after} == {"hybrid"}
        assert (asked["profile"], asked["indexStage"]) == ("bge-m3", "hybrid")
        assert status["upgrade"]["answering"] == [
            {"version": VERSION, "profile": "bge-m3", "stage": "hybrid"}
        ]
        assert status["upgrade"]["switched"] == [VERSION]
        assert status["loading"]["indexedVersions"] == [VERSION]
        assert len(_shown(session, SWITCHED)) == 1


async def test_when_bge_m3_cannot_load_one_message_says_what_to_do_and_light_answers(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    empty = tmp_path / "no-bge-m3-here"
    empty.mkdir()
    gate = tmp_path / "let-the-dense-pass-go"
    gate.touch()  # nothing held: the light index is built to the end
    server = [sys.executable, "-m", "tests.support.gated_server", str(gate)]
    options = _options(tmp_path, empty)
    async with lsp_session(server, project, env=env, initialization_options=options) as session:
        await session.loaded(timeout=300)
        first = await _search(session)
        second = await _search(session)
        status = await session.request("raggin/status", None)

        shown = _shown(session, UNAVAILABLE)
        assert len(shown) == 1
        assert "raggin.modelPath" in shown[0]
        assert "answers from the light profile's index" in shown[0]
        assert {r["profile"] for r in [*first, *second]} == {"light"}
        assert "widgets" in second[0]["urlPath"]
        assert status["loading"]["model"]["state"] == "failed"
        assert status["loading"]["model"]["attempts"] == 1  # not tried again per request
        assert status["upgrade"]["upgrading"] == []
        assert [a["profile"] for a in status["upgrade"]["answering"]] == ["light"]
        assert not _shown(session, SWITCHED)

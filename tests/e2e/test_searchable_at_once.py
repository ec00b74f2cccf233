"""Searchable at once, end to end over stdio: the server answers a question about a
version lexically while that version's dense vectors are still being computed, then in
hybrid mode once they are in, without a restart.

The server is ``tests.support.gated_server``: ``raggin-lsp serve`` whose index jobs hold
their dense pass until a file exists, so the test sees the lexical stage for sure (no
race against the clock). The docs are the small fixture tree, installed in the fixture
project's ``node_modules/next/dist/docs`` as the 16.2.0 docs; the light profile embeds
them; the index starts empty.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from raggin_lsp import paths
from tests.server.harness import copy_fixture, lsp_session
from tests.support.fake_ollama import closed_port_host

pytestmark = [pytest.mark.slow]

VERSION = "16.2.0"
FIXTURE_DOCS = Path(__file__).parents[1] / "fixtures" / "docs" / "tree" / "docs"
INDEX_TITLE = f"Indexing Next.js {VERSION} docs"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The fixture project with the fixture docs installed as its next package's docs."""
    root = copy_fixture(tmp_path)
    shutil.copytree(FIXTURE_DOCS, root / "node_modules" / "next" / "dist" / "docs")
    return root


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """A cache with the light model and the release list, and no docs: the server reads
    the 16.2.0 docs from the project."""
    cache = tmp_path / "cache"
    for name in ("models", "catalog"):
        if (paths.cache_dir() / name).is_dir():
            shutil.copytree(paths.cache_dir() / name, cache / name)
    return cache


async def _search(session: Any) -> list[dict[str, Any]]:
    results = await asyncio.wait_for(
        session.request(
            "raggin/search", {"query": "widgets server components", "version": VERSION}
        ),
        300,
    )
    assert results, "the search found nothing"
    return list(results)


async def test_the_server_answers_lexically_while_dense_vectors_are_computed_then_hybrid(
    tmp_path: Path, project: Path, cache_dir: Path
) -> None:
    gate = tmp_path / "let-the-dense-pass-go"
    options = {
        "profile": "light",
        "qdrantPath": str(tmp_path / "qdrant"),
        "ollamaHost": closed_port_host(),
        "autoIndex": True,
    }
    env = {
        "RAGGIN_CONFIG_FILE": str(tmp_path / "no-user-config.yaml"),
        "RAGGIN_DATA_DIR": str(tmp_path / "data"),
        "RAGGIN_CACHE_DIR": str(cache_dir),
    }
    server = [sys.executable, "-m", "tests.support.gated_server", str(gate)]
    async with lsp_session(server, project, env=env, initialization_options=options) as session:
        try:
            await session.loaded(timeout=300)
            lexical = await _search(session)
            status = await session.request("raggin/status", None)
        finally:
            gate.touch()  # a held job would keep the server from exiting

        assert {r["indexStage"] for r in lexical} == {"lexical only, dense 0%"}
        assert all("text" not in r["scores"] for r in lexical)  # no dense score yet
        assert "widgets" in lexical[0]["urlPath"]
        lexical_stage = [{"version": VERSION, "stage": "lexical only, dense 0%"}]
        assert status["loading"]["indexStages"] == lexical_stage
        assert status["loading"]["indexing"] == [VERSION]
        assert VERSION not in status["loading"]["indexedVersions"]
        assert status["assistant"]["indexStages"] == lexical_stage

        await session.wait_for(
            lambda: any(session.ended(t) for t in session.tokens_titled(INDEX_TITLE)), 600
        )
        hybrid = await _search(session)
        status = await session.request("raggin/status", None)

        assert {r["indexStage"] for r in hybrid} == {"hybrid"}
        assert all("text" in r["scores"] for r in hybrid)  # found by dense vectors too
        assert "widgets" in hybrid[0]["urlPath"]
        assert status["loading"]["indexStages"] == []
        assert status["loading"]["indexedVersions"] == [VERSION]
        assert status["assistant"]["indexStages"] == [{"version": VERSION, "stage": "hybrid"}]

"""Fixtures for the editor tests: a private index copy, the fixture project, a fake Ollama.

Each editor test starts the real server as its own process (as the editor would), so the
embedded index it opens must not be open anywhere else: it gets a copy of the shared one.
"""

import json
import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_ollama import FakeOllama, FakeScript

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_PROJECT = ROOT / "tests" / "fixtures" / "nextjs-project"
PROJECT_VERSION = "16.2.0"
FAKE_MODEL = "qwen2.5-coder:7b"
# What the fake model writes for every answer: cites [1], mentions the API asked about.
FAKE_REPLY = "Call `revalidatePath('/blog')` in the Server Action after saving the post [1]."
# A file that uses an API the fixture project's version (16.2.0) documents as deprecated.
DEPRECATED_FILE = "app/gallery.tsx"
DEPRECATED_TEXT = (
    "import Image from 'next/legacy/image'\n"
    "\n"
    "export default function Gallery() {\n"
    "  return <Image src='/a.png' alt='' width={1} height={1} />\n"
    "}\n"
)


@dataclass(frozen=True)
class EditorSetup:
    """Everything an editor client needs to start the server against the test index."""

    command: list[str]
    project: Path
    version: str
    init_options: dict[str, Any]
    fake: FakeOllama
    env: dict[str, str]

    def init_options_json(self) -> str:
        return json.dumps(self.init_options)


def server_command() -> list[str]:
    """``python -m raggin_lsp serve`` with the interpreter running the tests."""
    return [sys.executable, "-m", "raggin_lsp", "serve"]


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    # The package runs from the source tree, whether or not it is installed.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


@pytest.fixture(scope="module")
def editor_index(light_index_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("editor-index") / "qdrant"
    shutil.copytree(light_index_dir, copy)
    return copy


@pytest.fixture(scope="module")
def editor_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("editor-project") / "nextjs-project"
    shutil.copytree(FIXTURE_PROJECT, root)
    return root


@pytest.fixture(scope="module")
def fake_ollama() -> Iterator[FakeOllama]:
    # A small delay per token so that the answer really streams in several reports.
    script = FakeScript(models=(FAKE_MODEL,), reply=FAKE_REPLY, token_delay=0.03)
    with FakeOllama(script) as fake:
        yield fake


@pytest.fixture(scope="module")
def editor_setup(editor_index: Path, editor_project: Path, fake_ollama: FakeOllama) -> EditorSetup:
    return EditorSetup(
        command=server_command(),
        project=editor_project,
        version=PROJECT_VERSION,
        init_options={
            "profile": "light",
            "qdrantPath": str(editor_index),
            "ollamaHost": fake_ollama.host,
            "model": FAKE_MODEL,
            "autoIndex": False,
        },
        fake=fake_ollama,
        env=server_env(),
    )

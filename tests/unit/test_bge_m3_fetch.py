"""bge-m3 model files through fastembed's Hugging Face cache, exercised offline."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from raggin_lsp.embed.base import ProfileSpec
from raggin_lsp.embed.bge_m3 import BgeM3Embedder, fetch_bge_m3
from raggin_lsp.errors import OfflineError
from tests.support.tiny_models import build_tiny_bge_m3

REVISION = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    # Hugging Face is unreachable here; tests must not try it (and must not sleep on retries).
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_cached_snapshot_is_found_and_loads(tmp_path: Path) -> None:
    repo = tmp_path / "models--BAAI--bge-m3"
    snapshot = repo / "snapshots" / REVISION
    tiny = build_tiny_bge_m3(tmp_path / "built", hidden_size=8)
    shutil.copytree(tiny.folder, snapshot)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(REVISION)

    folder = fetch_bge_m3(tmp_path)

    assert folder == snapshot
    spec = ProfileSpec("bge-m3", 8, 512, sparse_uses_idf=False, fingerprint="tiny")
    embedder = BgeM3Embedder(folder, spec, max_tokens=512, batch_size=2)
    (embedding,) = embedder.embed_documents(["route group"])
    cls = tiny.hidden(tiny.ids("route group"))[0]
    np.testing.assert_allclose(embedding.dense, cls / np.linalg.norm(cls), atol=1e-5)


def test_snapshot_missing_the_sparse_head_is_not_accepted(tmp_path: Path) -> None:
    repo = tmp_path / "models--BAAI--bge-m3"
    snapshot = repo / "snapshots" / REVISION
    build_tiny_bge_m3(snapshot, hidden_size=8)
    (snapshot / "sparse_linear.pt").unlink()
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(REVISION)

    with pytest.raises(OfflineError, match="model path"):
        fetch_bge_m3(tmp_path)


def test_offline_without_a_cached_model_explains_the_ways_out(tmp_path: Path) -> None:
    with pytest.raises(OfflineError) as raised:
        fetch_bge_m3(tmp_path)

    message = str(raised.value)
    assert "BAAI/bge-m3" in message
    assert "model path" in message
    assert "light" in message

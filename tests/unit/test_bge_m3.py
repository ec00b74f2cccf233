"""The bge-m3 profile on a tiny model of the same shape, checked against numpy maths."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from raggin_lsp.embed import load_embedder
from raggin_lsp.embed.base import ProfileSpec
from raggin_lsp.embed.bge_m3 import BgeM3Embedder
from raggin_lsp.errors import ModelError
from tests.support.tiny_models import SPECIALS, TinyBgeM3, build_tiny_bge_m3

HIDDEN = 8
SPEC = ProfileSpec("bge-m3", HIDDEN, 512, sparse_uses_idf=False, fingerprint="tiny")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyBgeM3:
    return build_tiny_bge_m3(tmp_path_factory.mktemp("bge-m3"), hidden_size=HIDDEN)


def open_tiny(tiny: TinyBgeM3, *, batch_size: int = 4, max_tokens: int = 512) -> BgeM3Embedder:
    return BgeM3Embedder(tiny.folder, SPEC, max_tokens=max_tokens, batch_size=batch_size)


def expected_sparse(tiny: TinyBgeM3, text: str) -> dict[int, float]:
    """FlagEmbedding's rule, written independently: max relu weight per non-special id."""
    ids = np.array(tiny.ids(text))
    weights = np.maximum(tiny.hidden(list(ids)) @ tiny.head_weight + tiny.head_bias, 0.0)
    best = np.zeros(len(tiny.vocab))
    np.maximum.at(best, ids, weights)
    best[list(SPECIALS.values())] = 0.0
    return {int(i): float(best[i]) for i in np.flatnonzero(best)}


def count_runs(embedder: BgeM3Embedder, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    """Records the input_ids shape of every session.run call."""
    session = embedder._model.model
    assert session is not None
    real_run: Callable[..., Any] = session.run
    shapes: list[tuple[int, ...]] = []

    def run(output_names: Any, feeds: dict[str, np.ndarray], *args: Any) -> Any:
        shapes.append(tuple(feeds["input_ids"].shape))
        return real_run(output_names, feeds, *args)

    monkeypatch.setattr(session, "run", run)
    return shapes


TEXTS = [
    pytest.param(["route group"], id="one-text"),
    pytest.param(["page", "route group layout hello world cache"], id="padding-in-batch"),
    pytest.param(["hello hello world hello", "layout"], id="repeated-token"),
    pytest.param(["unknownword server", "client"], id="unknown-word"),
]


@pytest.mark.parametrize("texts", TEXTS)
def test_dense_is_the_normalised_cls_vector(tiny: TinyBgeM3, texts: list[str]) -> None:
    embeddings = open_tiny(tiny).embed_documents(texts)

    for text, embedding in zip(texts, embeddings, strict=True):
        cls = tiny.hidden(tiny.ids(text))[0]
        np.testing.assert_allclose(embedding.dense, cls / np.linalg.norm(cls), atol=1e-5)
        assert embedding.dense.dtype == np.float32
        assert np.linalg.norm(embedding.dense) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("texts", TEXTS)
def test_sparse_is_the_lexical_weights(tiny: TinyBgeM3, texts: list[str]) -> None:
    embeddings = open_tiny(tiny).embed_documents(texts)

    for text, embedding in zip(texts, embeddings, strict=True):
        got = dict(zip(embedding.sparse.indices, embedding.sparse.values, strict=True))
        want = expected_sparse(tiny, text)
        assert got.keys() == want.keys()
        for token_id, weight in want.items():
            assert got[token_id] == pytest.approx(weight, abs=1e-5)
        assert list(embedding.sparse.indices) == sorted(embedding.sparse.indices)


def test_repeated_token_keeps_its_largest_weight(tiny: TinyBgeM3) -> None:
    # Positions give each repeat a different weight; the largest one must win.
    text = "hello hello hello hello"
    ids = tiny.ids(text)
    weights = tiny.hidden(ids) @ tiny.head_weight + tiny.head_bias
    hello = tiny.vocab["hello"]
    per_repeat = [w for i, w in zip(ids, weights, strict=True) if i == hello]
    assert len(set(np.round(per_repeat, 4))) > 1, "the tiny model should vary by position"

    (embedding,) = open_tiny(tiny).embed_documents([text])

    got = dict(zip(embedding.sparse.indices, embedding.sparse.values, strict=True))
    assert got.get(hello, 0.0) == pytest.approx(max(0.0, float(max(per_repeat))), abs=1e-5)


def test_special_and_unknown_tokens_never_appear(tiny: TinyBgeM3) -> None:
    embeddings = open_tiny(tiny).embed_documents(
        ["nothing known here", "route", "a b c d e f g h i j k l"]
    )

    for embedding in embeddings:
        assert not set(embedding.sparse.indices) & set(SPECIALS.values())


@pytest.mark.parametrize(
    ("count", "batch_size", "runs"),
    [
        pytest.param(1, 4, 1, id="single"),
        pytest.param(5, 2, 3, id="three-batches"),
        pytest.param(4, 4, 1, id="exact-batch"),
    ],
)
def test_model_runs_once_per_batch(
    tiny: TinyBgeM3, monkeypatch: pytest.MonkeyPatch, count: int, batch_size: int, runs: int
) -> None:
    embedder = open_tiny(tiny, batch_size=batch_size)
    shapes = count_runs(embedder, monkeypatch)

    embedder.embed_documents(["route group " * (i + 1) for i in range(count)])

    assert len(shapes) == runs


def test_query_runs_the_model_once_and_matches_the_document_vector(
    tiny: TinyBgeM3, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = open_tiny(tiny)
    (document,) = embedder.embed_documents(["server cache"])
    shapes = count_runs(embedder, monkeypatch)

    query = embedder.embed_query("server cache")

    assert len(shapes) == 1
    np.testing.assert_allclose(query.dense, document.dense, atol=1e-6)
    assert query.sparse == document.sparse


def test_results_keep_input_order_across_length_sorted_batches(tiny: TinyBgeM3) -> None:
    texts = ["page", "route group layout hello", "cache", "server client world page layout"]

    batched = open_tiny(tiny, batch_size=2).embed_documents(texts)
    single = [open_tiny(tiny, batch_size=1).embed_query(text) for text in texts]

    for one, other in zip(batched, single, strict=True):
        np.testing.assert_allclose(one.dense, other.dense, atol=1e-5)
        assert one.sparse.indices == other.sparse.indices
        np.testing.assert_allclose(one.sparse.values, other.sparse.values, atol=1e-5)


def test_max_tokens_truncates_what_the_model_sees_but_not_the_count(
    tiny: TinyBgeM3, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = open_tiny(tiny, max_tokens=16)
    shapes = count_runs(embedder, monkeypatch)
    text = "route " * 40

    embedder.embed_documents([text])

    assert shapes == [(1, 16)]
    assert embedder.count_tokens(text) == 42  # 40 words + <s> + </s>


def test_progress_reports_every_batch(tiny: TinyBgeM3) -> None:
    reports: list[tuple[int, int]] = []

    open_tiny(tiny, batch_size=2).embed_documents(
        ["page"] * 5, progress=lambda done, total: reports.append((done, total))
    )

    assert reports == [(2, 5), (4, 5), (5, 5)]


def test_graph_without_token_embeddings_fails_clearly(tmp_path: Path) -> None:
    pooled = build_tiny_bge_m3(tmp_path, hidden_size=HIDDEN, output_rank=2)

    with pytest.raises(ModelError, match=r"token embeddings \[batch, sequence, 8\]"):
        open_tiny(pooled)


def test_output_is_found_by_shape_whatever_its_name(tmp_path: Path) -> None:
    renamed = build_tiny_bge_m3(tmp_path, hidden_size=HIDDEN, output_name="last_hidden_state")

    (embedding,) = open_tiny(renamed).embed_documents(["route"])

    cls = renamed.hidden(renamed.ids("route"))[0]
    np.testing.assert_allclose(embedding.dense, cls / np.linalg.norm(cls), atol=1e-5)


def test_load_embedder_rejects_a_model_of_the_wrong_width(tiny: TinyBgeM3) -> None:
    # The real profile expects 1024-wide hidden states; the tiny model has 8.
    with pytest.raises(ModelError, match="1024"):
        load_embedder("bge-m3", model_path=tiny.folder)


@pytest.mark.parametrize(
    "missing",
    [
        pytest.param("onnx/model.onnx_data", id="external-data"),
        pytest.param("sparse_linear.pt", id="sparse-head"),
        pytest.param("tokenizer.json", id="tokenizer"),
    ],
)
def test_model_path_missing_a_file_names_it(tmp_path: Path, missing: str) -> None:
    build_tiny_bge_m3(tmp_path, hidden_size=HIDDEN)
    (tmp_path / missing).unlink()

    with pytest.raises(ModelError, match=missing):
        load_embedder("bge-m3", model_path=tmp_path)

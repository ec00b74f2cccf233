"""The random-weights XLM-R builder: the graph computes XLM-R, the folder loads as bge-m3.

A tiny variant (2 layers, hidden 64, vocabulary 1,000) goes through the very function
that builds the 2.3 GB model for ``make bench``; its output is checked against an
independent numpy forward pass of XLM-RoBERTa using the weights read back from the file.
"""

import math
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnx
import onnxruntime as ort
import pytest
from onnx import numpy_helper

from bench.random_bge_m3 import (
    INFO_FILE,
    RandomModel,
    build_random_bge_m3,
    cached_random_bge_m3,
)
from bench.xlmr_graph import BGE_M3_ARCHITECTURE, Architecture, write_xlmr_graph
from raggin_lsp.embed.base import ProfileSpec
from raggin_lsp.embed.bge_m3 import BgeM3Embedder

TINY = Architecture(layers=2, hidden=64, heads=4, ffn=128, vocab_size=1000, max_positions=130)
FIXTURE_DOCS = Path(__file__).parents[1] / "fixtures" / "docs" / "tree"
Floats = npt.NDArray[np.float64]


def fixture_texts() -> list[str]:
    return [path.read_text(encoding="utf-8") for path in sorted(FIXTURE_DOCS.rglob("*.md"))]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> RandomModel:
    return build_random_bge_m3(tmp_path_factory.mktemp("tiny"), fixture_texts(), TINY, seed=7)


def _layer_norm(x: Floats, weight: Floats, bias: Floats, eps: float) -> Floats:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    result: Floats = (x - mean) / np.sqrt(var + eps) * weight + bias
    return result


def _softmax(x: Floats) -> Floats:
    e = np.exp(x - x.max(-1, keepdims=True))
    result: Floats = e / e.sum(-1, keepdims=True)
    return result


def xlmr_forward(
    w: dict[str, Floats],
    arch: Architecture,
    ids: npt.NDArray[np.int64],
    mask: npt.NDArray[np.int64],
) -> Floats:
    """XLM-RoBERTa's forward pass as transformers defines it, in float64 numpy."""
    pad = arch.padding_idx
    not_pad = (ids != pad).astype(np.int64)
    positions = np.cumsum(not_pad, axis=1) * not_pad + pad
    x = (
        w["embeddings.word_embeddings"][ids]
        + w["embeddings.position_embeddings"][positions]
        + w["embeddings.token_type_embeddings"][0]
    )
    eps = arch.layer_norm_eps
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    batch, seq = ids.shape
    heads, dim = arch.heads, arch.hidden // arch.heads
    bias = (1.0 - mask[:, None, None, :]) * np.finfo(np.float32).min
    erf = np.vectorize(math.erf)
    for i in range(arch.layers):
        p = f"encoder.layer.{i}"

        def proj(name: str, x: Floats = x, p: str = p) -> Floats:
            out = x @ w[f"{p}.attention.self.{name}.weight"] + w[f"{p}.attention.self.{name}.bias"]
            return out.reshape(batch, seq, heads, dim).transpose(0, 2, 1, 3)

        q, k, v = proj("query"), proj("key"), proj("value")
        probs = _softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(dim) + bias)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, arch.hidden)
        attended = context @ w[f"{p}.attention.output.dense.weight"]
        attended = attended + w[f"{p}.attention.output.dense.bias"]
        x = _layer_norm(
            attended + x,
            w[f"{p}.attention.output.LayerNorm.weight"],
            w[f"{p}.attention.output.LayerNorm.bias"],
            eps,
        )
        inner = x @ w[f"{p}.intermediate.dense.weight"] + w[f"{p}.intermediate.dense.bias"]
        activated = 0.5 * inner * (1.0 + erf(inner / math.sqrt(2.0)))
        out = activated @ w[f"{p}.output.dense.weight"] + w[f"{p}.output.dense.bias"]
        x = _layer_norm(
            out + x, w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"], eps
        )
    return x


@pytest.mark.parametrize(
    "ids",
    [
        pytest.param([[0, 17, 42, 999, 2]], id="one-text"),
        pytest.param([[0, 5, 6, 7, 8, 9, 2], [0, 11, 2, 1, 1, 1, 1]], id="padded-batch"),
        pytest.param([[0, *range(4, 124), 2]], id="longest-position"),
    ],
)
def test_graph_computes_xlm_roberta(tmp_path: Path, ids: list[list[int]]) -> None:
    model_file = tmp_path / "model.onnx"
    write_xlmr_graph(model_file, TINY, seed=3)
    onnx.checker.check_model(str(model_file))
    weights = {
        tensor.name: numpy_helper.to_array(tensor).astype(np.float64)
        for tensor in onnx.load(str(model_file)).graph.initializer
    }
    input_ids = np.array(ids, dtype=np.int64)
    mask = (input_ids != TINY.padding_idx).astype(np.int64)
    session = ort.InferenceSession(str(model_file), providers=["CPUExecutionProvider"])
    (output,) = session.run(["token_embeddings"], {"input_ids": input_ids, "attention_mask": mask})
    assert output.shape == (*input_ids.shape, TINY.hidden)
    expected = xlmr_forward(weights, TINY, input_ids, mask)
    real = mask.astype(bool)  # padded positions are never read downstream
    np.testing.assert_allclose(output[real], expected[real], atol=2e-4, rtol=2e-4)


def test_same_seed_same_weights_other_seed_other_weights(tmp_path: Path) -> None:
    data = [
        write_xlmr_graph(tmp_path / name / "model.onnx", TINY, seed=seed).read_bytes()
        for name, seed in (("a", 1), ("b", 1), ("c", 2))
    ]
    assert data[0] == data[1]
    assert data[0] != data[2]


def test_full_size_is_bge_m3s_568_million_weights() -> None:
    # The model card's count (568M) includes the 1M-weight pooler our export leaves out.
    pooler = 1024 * 1024 + 1024
    assert BGE_M3_ARCHITECTURE.parameters + pooler == pytest.approx(568e6, rel=0.002)
    assert BGE_M3_ARCHITECTURE.max_tokens == 8192


@pytest.mark.parametrize(
    "sizes",
    [
        pytest.param({"hidden": 64, "heads": 5}, id="heads-do-not-divide"),
        pytest.param({"layers": 0}, id="no-layers"),
        pytest.param({"max_positions": 2}, id="no-room-for-positions"),
    ],
)
def test_architecture_refuses_impossible_shapes(sizes: dict[str, int]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 (the message names the problem)
        Architecture(**sizes)


def test_tokenizer_keeps_xlm_r_special_ids(tiny: RandomModel) -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tiny.folder / "tokenizer.json"))
    assert [tokenizer.token_to_id(t) for t in ("<s>", "<pad>", "</s>", "<unk>")] == [0, 1, 2, 3]
    assert tiny.tokenizer_vocab <= TINY.vocab_size
    ids = tokenizer.encode("Use revalidatePath in a Server Action.").ids
    assert (ids[0], ids[-1]) == (0, 2)
    assert all(i < TINY.vocab_size for i in ids)


def test_folder_loads_and_embeds_through_the_bge_m3_path(tiny: RandomModel) -> None:
    spec = ProfileSpec("bge-m3", TINY.hidden, 64, sparse_uses_idf=False, fingerprint="tiny")
    embedder = BgeM3Embedder(tiny.folder, spec, max_tokens=TINY.max_tokens, batch_size=2)
    texts = fixture_texts()[:3]
    embeddings = embedder.embed_documents(texts)
    assert len(embeddings) == len(texts)
    for embedding in embeddings:
        assert embedding.dense.shape == (TINY.hidden,)
        assert np.isfinite(embedding.dense).all()
        assert np.linalg.norm(embedding.dense) == pytest.approx(1.0, rel=1e-4)
        assert all(0 <= i < TINY.vocab_size for i in embedding.sparse.indices)
    query = embedder.embed_query("How do route groups work?")
    assert query.dense.shape == (TINY.hidden,)


def test_cache_builds_once_and_rebuilds_a_partial_folder(tmp_path: Path) -> None:
    calls: list[int] = []

    def texts() -> list[str]:
        calls.append(1)
        return fixture_texts()

    first = cached_random_bge_m3(texts, corpus="fixture", arch=TINY, cache=tmp_path)
    again = cached_random_bge_m3(texts, corpus="fixture", arch=TINY, cache=tmp_path)
    assert (first.reused, again.reused) == (False, True)
    assert again.folder == first.folder
    assert again.build_seconds == pytest.approx(first.build_seconds)
    assert len(calls) == 1
    (first.folder / INFO_FILE).unlink()  # as if the build had been interrupted
    rebuilt = cached_random_bge_m3(texts, corpus="fixture", arch=TINY, cache=tmp_path)
    assert not rebuilt.reused
    assert len(calls) == 2
    assert not [p for p in (tmp_path / "bench").iterdir() if p.name.startswith(".building")]

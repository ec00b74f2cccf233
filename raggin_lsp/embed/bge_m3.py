"""The ``bge-m3`` profile: BAAI/bge-m3 dense + lexical vectors from one forward pass.

fastembed 0.9 does not ship BGE-M3, so we register it as a fastembed custom model over
the Hugging Face repo ``BAAI/bge-m3`` (``onnx/model.onnx`` with its external data
``onnx/model.onnx_data``, the tokenizer files and the sparse head ``sparse_linear.pt``).
fastembed's download machinery fetches and caches them with huggingface_hub (progress
bars, resumable downloads, size checks, and the hardlinks onnxruntime >= 1.24 needs to
find external data in a shared blob cache); ``model_path`` points at a local folder of
the same layout instead, for air-gapped machines.

fastembed's own post-processing keeps only a pooled vector, and BGE-M3's lexical
weights need every token's hidden state. So we let fastembed build the session and the
tokenizer (providers, truncation, padding) and call its ``onnx_embed`` for the raw
``[batch, seq, 1024]`` output, then derive both vectors from that one run
(:mod:`raggin_lsp.embed.lexical`). The output is picked by reading the graph, never
assumed, and a graph of another shape fails with a :class:`ModelError`.
"""

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from fastembed import TextEmbedding
from fastembed.common.model_description import DenseModelDescription, ModelSource, PoolingType
from fastembed.common.preprocessor_utils import load_special_tokens
from fastembed.text.custom_text_embedding import CustomTextEmbedding
from tokenizers import Tokenizer

from raggin_lsp import paths
from raggin_lsp.embed.base import Embedding, ProfileSpec, ProgressCallback
from raggin_lsp.embed.batching import map_in_length_batches, token_lengths
from raggin_lsp.embed.catalog import BGE_M3, Profile
from raggin_lsp.embed.lexical import cls_dense, lexical_weights
from raggin_lsp.embed.runtime import CPU_MEM_ARENA, ONNX_ERRORS, execution_providers
from raggin_lsp.embed.torch_head import read_linear_head
from raggin_lsp.errors import ModelError, OfflineError

SPARSE_HEAD = "sparse_linear.pt"
PREFERRED_OUTPUT = "token_embeddings"
REQUIRED_INPUTS = ("input_ids", "attention_mask")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")
# XLM-RoBERTa's, used when special_tokens_map.json does not name them.
DEFAULT_SPECIAL_TOKENS = {
    "cls_token": "<s>",
    "eos_token": "</s>",
    "pad_token": "<pad>",
    "unk_token": "<unk>",
}

# Texts of up to this many tokens are batched together at the full batch size; longer
# ones in smaller batches, so that a batch never pads to more tokens than that many full
# ones (attention memory grows with batch x length^2).
BATCH_TOKENS_PER_TEXT = 1024

_registration = threading.Lock()


def model_description(profile: Profile = BGE_M3) -> DenseModelDescription:
    assert profile.hf_repo is not None
    return DenseModelDescription(
        # Our own name: should fastembed ever ship BGE-M3, its entry cannot clash with ours.
        model=f"raggin/{profile.name}",
        sources=ModelSource(hf=profile.hf_repo),
        dim=profile.dense_dim,
        model_file=profile.hf_files[0],
        description=profile.description,
        license="mit",
        size_in_GB=2.27,
        additional_files=list(profile.hf_files[1:]),
    )


def register_bge_m3(profile: Profile = BGE_M3) -> None:
    """Make BGE-M3 known to fastembed (once per process; fastembed refuses twice)."""
    description = model_description(profile)
    with _registration:
        known = {model["model"].lower() for model in TextEmbedding.list_supported_models()}
        if description.model.lower() in known:
            return
        TextEmbedding.add_custom_model(
            model=description.model,
            pooling=PoolingType.CLS,
            normalization=True,
            sources=description.sources,
            dim=profile.dense_dim,
            model_file=description.model_file,
            description=description.description,
            license=description.license,
            size_in_gb=description.size_in_GB,
            additional_files=description.additional_files,
        )


def fetch_bge_m3(cache: Path | None = None, *, profile: Profile = BGE_M3) -> Path:
    """The model folder in fastembed's Hugging Face cache, downloading what is missing."""
    cache_dir = cache if cache is not None else paths.models_cache_dir() / "fastembed"
    cache_dir.mkdir(parents=True, exist_ok=True)
    try:
        folder = CustomTextEmbedding.download_model(
            model_description(profile), str(cache_dir), retries=2
        )
    except (ValueError, OSError, httpx.HTTPError) as error:
        raise OfflineError(
            f"Could not download {profile.hf_repo} from Hugging Face into {cache_dir} "
            f"({error}). Connect to the internet, or download the repository's "
            f"{', '.join(profile.hf_files)} and tokenizer files elsewhere and set the "
            "model path setting to that folder, or use the 'light' profile."
        ) from error
    return Path(folder)


def check_model_folder(folder: Path, profile: Profile = BGE_M3) -> None:
    """Fail with the list of missing files rather than a loader's traceback."""
    missing = [
        name for name in (*profile.hf_files, *TOKENIZER_FILES) if not (folder / name).is_file()
    ]
    if missing:
        raise ModelError(
            f"The {profile.name} model folder {folder} lacks {', '.join(missing)}. It needs "
            f"the layout of the Hugging Face repository {profile.hf_repo}."
        )


class BgeM3Embedder:
    def __init__(
        self,
        folder: Path,
        spec: ProfileSpec,
        *,
        max_tokens: int,
        batch_size: int,
        profile: Profile = BGE_M3,
    ) -> None:
        check_model_folder(folder, profile)
        register_bge_m3(profile)
        self.spec = spec
        self._batch_size = batch_size
        self._max_tokens = max_tokens
        try:
            # The class TextEmbedding would pick for a registered custom model.
            self._model = CustomTextEmbedding(
                model_name=model_description(profile).model,
                specific_model_path=str(folder),
                providers=execution_providers(),
                enable_cpu_mem_arena=CPU_MEM_ARENA,
            )
            tokenizer = self._model.tokenizer
            self._counter = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except ONNX_ERRORS as error:
            raise ModelError(f"Could not load {profile.name} from {folder}: {error}") from error
        if tokenizer is None or self._model.model is None:
            raise ModelError(f"fastembed did not load {profile.name} from {folder}.")
        tokenizer.enable_truncation(max_length=max_tokens)
        self._counter.no_truncation()
        self._counter.no_padding()
        # fastembed runs the outputs named here; None would mean "all of them".
        self._model.ONNX_OUTPUT_NAMES = [self._pick_output(self._model.model, spec.dense_dim)]
        self._weight, self._bias = read_linear_head(folder / SPARSE_HEAD, spec.dense_dim)
        self._special_ids = _special_token_ids(folder, tokenizer)

    @staticmethod
    def _pick_output(session: Any, width: int) -> str:
        inputs = {node.name for node in session.get_inputs()}
        missing = [name for name in REQUIRED_INPUTS if name not in inputs]
        outputs = {node.name: node.shape for node in session.get_outputs()}
        candidates = [
            name
            for name, shape in outputs.items()
            if len(shape) == 3 and (shape[2] == width or not isinstance(shape[2], int))
        ]
        if PREFERRED_OUTPUT in candidates:
            candidates = [PREFERRED_OUTPUT]
        if missing or len(candidates) != 1:
            described = ", ".join(f"{name} {shape}" for name, shape in outputs.items())
            raise ModelError(
                f"The bge-m3 ONNX graph does not look like BGE-M3: it needs inputs "
                f"{', '.join(REQUIRED_INPUTS)} (has {', '.join(sorted(inputs))}) and one "
                f"output of token embeddings [batch, sequence, {width}] (has {described})."
            )
        return str(candidates[0])

    def embed_documents(
        self, texts: Sequence[str], *, progress: ProgressCallback | None = None
    ) -> list[Embedding]:
        lengths = token_lengths(self._counter, texts, self._max_tokens)
        return map_in_length_batches(
            texts,
            self._embed_batch,
            batch_size=self._batch_size,
            lengths=lengths,
            max_batch_tokens=self._batch_size * BATCH_TOKENS_PER_TEXT,
            progress=progress,
        )

    def embed_query(self, text: str, *, sparse_text: str | None = None) -> Embedding:
        # BGE-M3 embeds queries and documents alike (no instruction prefix).
        if sparse_text is None or sparse_text == text:
            return self._embed_batch([text])[0]
        dense, sparse = self._embed_batch([text, sparse_text])  # one forward pass
        return Embedding(dense=dense.dense, sparse=sparse.sparse)

    def count_tokens(self, text: str) -> int:
        return len(self._counter.encode(text, add_special_tokens=True))

    def _embed_batch(self, texts: list[str]) -> list[Embedding]:
        try:
            output = self._model.onnx_embed(texts)
        except ONNX_ERRORS as error:
            raise ModelError(
                f"bge-m3 failed on a batch of {len(texts)} texts: {error}. A smaller batch "
                "size needs less memory."
            ) from error
        hidden = np.asarray(output.model_output, dtype=np.float32)
        width = self.spec.dense_dim
        if hidden.ndim != 3 or hidden.shape[0] != len(texts) or hidden.shape[2] != width:
            raise ModelError(
                f"The bge-m3 model returned an output of shape {hidden.shape}; expected "
                f"[{len(texts)}, sequence, {width}] token embeddings."
            )
        if output.input_ids is None or output.attention_mask is None:
            raise ModelError("fastembed did not return the tokenized batch with the output.")
        dense = cls_dense(hidden)
        sparse = lexical_weights(
            hidden,
            np.asarray(output.input_ids),
            np.asarray(output.attention_mask),
            self._weight,
            self._bias,
            self._special_ids,
        )
        return [Embedding(dense=d, sparse=s) for d, s in zip(dense, sparse, strict=True)]


def _special_token_ids(folder: Path, tokenizer: Tokenizer) -> frozenset[int]:
    tokens_map = load_special_tokens(folder)
    ids: set[int] = set()
    for key, default in DEFAULT_SPECIAL_TOKENS.items():
        token = tokens_map.get(key, default)
        content = token.get("content") if isinstance(token, dict) else token
        token_id = tokenizer.token_to_id(content) if isinstance(content, str) else None
        if token_id is not None:
            ids.add(token_id)
    return frozenset(ids)

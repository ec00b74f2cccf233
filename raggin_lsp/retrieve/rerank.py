"""Cross-encoder reranking through fastembed's ``TextCrossEncoder``.

A cross-encoder reads the question and one passage together and scores how well the
passage answers it: slower than comparing vectors, so it only re-orders the few best
candidates of hybrid search (the ``rerank`` retrieval stage).

The model is named by the ``rerankerModel`` setting: one of fastembed's cross-encoders
(downloaded from Hugging Face into raggin's model cache on first use, like ``bge-m3``),
or a local folder holding an exported cross-encoder (``model.onnx`` or
``onnx/model.onnx`` with its ``tokenizer.json``, ``config.json``,
``special_tokens_map.json`` and ``tokenizer_config.json``).
"""

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path

import httpx
from fastembed.common.model_description import ModelSource
from fastembed.rerank.cross_encoder import TextCrossEncoder
from fastembed.rerank.cross_encoder.onnx_text_cross_encoder import OnnxTextCrossEncoder

from raggin_lsp import paths
from raggin_lsp.embed.runtime import ONNX_ERRORS, execution_providers
from raggin_lsp.errors import ModelError, OfflineError

# Pairs scored per onnxruntime call (the stage scores ~20 candidates at a time).
_BATCH = 32
_registration = threading.Lock()


def known_rerankers() -> list[str]:
    """The cross-encoders fastembed can download by name."""
    return sorted(str(model["model"]) for model in TextCrossEncoder.list_supported_models())


class CrossEncoderReranker:
    """Scores (question, passage) pairs; higher means a better answer to the question."""

    def __init__(self, name_or_path: str, *, cache: Path | None = None) -> None:
        self.name = name_or_path
        folder = Path(name_or_path).expanduser()
        cache_dir = cache if cache is not None else paths.models_cache_dir() / "fastembed"
        try:
            if folder.is_dir():
                self._model = TextCrossEncoder(
                    _register_folder(folder),
                    specific_model_path=str(folder),
                    providers=execution_providers(),
                )
            else:
                self._model = self._download(name_or_path, cache_dir)
        except ONNX_ERRORS as error:
            raise ModelError(
                f"Could not load the reranker {name_or_path}: {error}. Set rerankerModel to "
                "one of fastembed's cross-encoders or to a folder holding an exported one."
            ) from error

    @staticmethod
    def _download(name: str, cache_dir: Path) -> TextCrossEncoder:
        description = next(
            (
                m
                for m in OnnxTextCrossEncoder._list_supported_models()
                if m.model.lower() == name.lower()
            ),
            None,
        )
        if description is None:
            raise ModelError(
                f"Unknown reranker '{name}': not a folder, and not one of fastembed's "
                f"cross-encoders ({', '.join(known_rerankers())})."
            )
        cache_dir.mkdir(parents=True, exist_ok=True)
        try:
            # One attempt: fastembed's default retries sleep ~40 s before failing offline.
            folder = OnnxTextCrossEncoder.download_model(description, str(cache_dir), retries=1)
        except (ValueError, OSError, httpx.HTTPError) as error:
            raise OfflineError(
                f"Could not download the reranker {name} into {cache_dir} ({error}). "
                "Connect to the internet once, set rerankerModel to a folder holding the "
                "model, or turn the rerank stage off."
            ) from error
        return TextCrossEncoder(
            description.model, specific_model_path=str(folder), providers=execution_providers()
        )

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """One relevance score per passage, in order (raw logits of the model)."""
        if not passages:
            return []
        try:
            return [float(s) for s in self._model.rerank(query, list(passages), batch_size=_BATCH)]
        except ONNX_ERRORS as error:
            raise ModelError(f"The reranker {self.name} failed: {error}") from error


def _register_folder(folder: Path) -> str:
    """Make a local cross-encoder known to fastembed under a name derived from its path."""
    model_file = next(
        (name for name in ("model.onnx", "onnx/model.onnx") if (folder / name).is_file()), None
    )
    if model_file is None:
        raise ModelError(f"The reranker folder {folder} holds no model.onnx (nor onnx/model.onnx).")
    digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:12]
    name = f"raggin/reranker-{digest}"
    with _registration:
        if name.lower() not in {model.lower() for model in known_rerankers()}:
            TextCrossEncoder.add_custom_model(
                model=name,
                # Never downloaded: the folder is always passed as specific_model_path.
                sources=ModelSource(url=folder.resolve().as_uri()),
                model_file=model_file,
                description=f"local cross-encoder in {folder}",
            )
    return name

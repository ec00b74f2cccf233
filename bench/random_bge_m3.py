"""A model folder with BGE-M3's layout and architecture but random weights (speed only).

It loads through the real ``bge-m3`` code path (:class:`raggin_lsp.embed.bge_m3.BgeM3Embedder`
with ``model_path``): ``onnx/model.onnx`` + ``onnx/model.onnx_data`` (see
:mod:`bench.xlmr_graph`), a random ``sparse_linear.pt`` head, and a tokenizer.
XLM-R's own tokenizer cannot be downloaded here either, so a SentencePiece-style Unigram
tokenizer is trained on the Next.js docs themselves: sections then split into about as
many tokens as a real subword tokenizer would make of them, which is what the timing
depends on. Special tokens keep XLM-R's ids: ``<s>`` 0, ``<pad>`` 1, ``</s>`` 2, ``<unk>`` 3.

Vectors from this folder mean nothing; only its timings do.
"""

import hashlib
import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
from tokenizers import (
    Regex,
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)

from bench.xlmr_graph import BGE_M3_ARCHITECTURE, Architecture, write_xlmr_graph
from raggin_lsp import paths
from raggin_lsp.embed.bge_m3 import SPARSE_HEAD
from tests.support.torch_writer import write_torch_state_dict

SPECIAL_TOKENS = ("<s>", "<pad>", "</s>", "<unk>")  # ids 0..3, as in XLM-R
# A monolingual subword vocabulary; the Unigram trainer stops earlier if the corpus is small.
TOKENIZER_VOCAB = 32_000
# Bumped whenever the folder's contents would change, so a stale cache is rebuilt.
FORMAT_VERSION = 1
INFO_FILE = "bench-model.json"


@dataclass(frozen=True)
class RandomModel:
    folder: Path
    architecture: Architecture
    parameters: int
    tokenizer_vocab: int
    build_seconds: float  # how long building it took (when it was built)
    reused: bool  # True when taken from the cache


def train_tokenizer(texts: Iterable[str], vocab_size: int) -> Tokenizer:
    """An XLM-R-like (SentencePiece Unigram, whitespace folded) tokenizer for ``texts``."""
    tokenizer = Tokenizer(models.Unigram())
    # XLM-R's normalizer folds every whitespace run into one space: newlines cost nothing.
    tokenizer.normalizer = normalizers.Sequence(
        [normalizers.NFKC(), normalizers.Replace(Regex(r"\s+"), " ")]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        unk_token="<unk>",
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    ids = [tokenizer.token_to_id(token) for token in SPECIAL_TOKENS]
    if ids != list(range(len(SPECIAL_TOKENS))):
        raise RuntimeError(f"the trainer numbered the special tokens {ids}, not 0..3")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 0), ("</s>", 2)],
    )
    return tokenizer


def build_random_bge_m3(
    folder: Path,
    texts: Iterable[str],
    arch: Architecture = BGE_M3_ARCHITECTURE,
    *,
    seed: int = 0,
    tokenizer_vocab: int = TOKENIZER_VOCAB,
    progress: Callable[[str], None] | None = None,
) -> RandomModel:
    """Write the whole folder (graph, head, tokenizer files) into ``folder``."""
    started = time.perf_counter()

    def say(message: str) -> None:
        if progress is not None:
            progress(message)

    folder.mkdir(parents=True, exist_ok=True)
    say("Training a tokenizer on the docs")
    tokenizer = train_tokenizer(texts, min(tokenizer_vocab, arch.vocab_size))
    tokenizer.save(str(folder / "tokenizer.json"))
    _write_tokenizer_settings(folder, arch)
    rng = np.random.default_rng(seed + 1)  # not the graph's stream: the head is independent
    write_torch_state_dict(
        folder / SPARSE_HEAD,
        {
            "weight": (rng.standard_normal((1, arch.hidden), dtype=np.float32) * 0.02),
            "bias": np.zeros(1, dtype=np.float32),
        },
    )
    size_gb = 4 * arch.parameters / 1e9
    say(f"Writing a {arch.layers}-layer graph with random weights ({size_gb:.2f} GB)")
    write_xlmr_graph(
        folder / "onnx" / "model.onnx",
        arch,
        seed=seed,
        progress=lambda done, total: say(f"Layer {done}/{total} written"),
    )
    model = RandomModel(
        folder=folder,
        architecture=arch,
        parameters=arch.parameters,
        tokenizer_vocab=tokenizer.get_vocab_size(),
        build_seconds=time.perf_counter() - started,
        reused=False,
    )
    info = {
        "note": "BGE-M3 architecture with random weights: for timing only",
        "architecture": asdict(arch),
        "parameters": model.parameters,
        "tokenizer_vocab": model.tokenizer_vocab,
        "build_seconds": model.build_seconds,
        "built_at": time.time(),
    }
    (folder / INFO_FILE).write_text(json.dumps(info, indent=2), encoding="utf-8")
    return model


def _write_tokenizer_settings(folder: Path, arch: Architecture) -> None:
    special_map = {
        "bos_token": "<s>",
        "cls_token": "<s>",
        "eos_token": "</s>",
        "sep_token": "</s>",
        "pad_token": "<pad>",
        "unk_token": "<unk>",
    }
    (folder / "special_tokens_map.json").write_text(json.dumps(special_map, indent=2))
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"model_max_length": arch.max_tokens, **special_map}, indent=2)
    )
    config = {
        "model_type": "xlm-roberta",
        "hidden_size": arch.hidden,
        "num_hidden_layers": arch.layers,
        "num_attention_heads": arch.heads,
        "intermediate_size": arch.ffn,
        "vocab_size": arch.vocab_size,
        "max_position_embeddings": arch.max_positions,
        "pad_token_id": arch.padding_idx,
    }
    (folder / "config.json").write_text(json.dumps(config, indent=2))


def cache_key(arch: Architecture, seed: int, corpus: str) -> str:
    identity = json.dumps(
        {"arch": asdict(arch), "seed": seed, "corpus": corpus, "format": FORMAT_VERSION},
        sort_keys=True,
    )
    return hashlib.sha256(identity.encode()).hexdigest()[:12]


def cached_random_bge_m3(
    texts: Callable[[], Iterable[str]],
    *,
    corpus: str,
    arch: Architecture = BGE_M3_ARCHITECTURE,
    seed: int = 0,
    cache: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> RandomModel:
    """The folder under ``<cache>/bench/``, built once (``corpus`` names the texts)."""
    base = (cache if cache is not None else paths.cache_dir()) / "bench"
    target = base / f"bge-m3-random-{cache_key(arch, seed, corpus)}"
    info_path = target / INFO_FILE
    if info_path.is_file():
        info = json.loads(info_path.read_text(encoding="utf-8"))
        return RandomModel(
            folder=target,
            architecture=arch,
            parameters=int(info["parameters"]),
            tokenizer_vocab=int(info["tokenizer_vocab"]),
            build_seconds=float(info["build_seconds"]),
            reused=True,
        )
    base.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=base))
    try:
        model = build_random_bge_m3(staging, texts(), arch, seed=seed, progress=progress)
        shutil.rmtree(target, ignore_errors=True)  # a folder without its info file is partial
        # Published by rename only when complete: an interrupted build is never reused.
        staging.replace(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return replace(model, folder=target)

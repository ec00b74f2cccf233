"""Tiny stand-ins for real embedding models, built in tests (no download, milliseconds).

``build_tiny_bge_m3`` writes a folder with BGE-M3's layout: an ONNX graph with the same
input and output names but a hidden size of a few units, an XLM-R style word-level
tokenizer (``<s>`` 0, ``<pad>`` 1, ``</s>`` 2, ``<unk>`` 3) and a sparse head in the real
``torch.save`` format, written opcode by opcode so torch is not needed. The returned
:class:`TinyBgeM3` computes the expected hidden states with numpy, independently of
the code under test.
"""

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

# The writer is shared with the benchmark (bench/), which writes a random head with it.
from tests.support.torch_writer import (
    torch_state_dict_pickle as torch_state_dict_pickle,
)
from tests.support.torch_writer import write_torch_state_dict

SPECIALS = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
WORDS = ("route", "group", "layout", "page", "server", "client", "cache", "hello", "world")
CONTEXT_SCALE = 0.1

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True)
class TinyBgeM3:
    folder: Path
    vocab: dict[str, int]
    token_table: FloatArray  # [vocab, hidden]
    position_table: FloatArray  # [max positions, hidden]
    head_weight: FloatArray  # [hidden]
    head_bias: float

    @property
    def hidden_size(self) -> int:
        return int(self.token_table.shape[1])

    def ids(self, text: str) -> list[int]:
        """What the tokenizer should produce: <s> words </s>, unknown words as <unk>."""
        words = [self.vocab.get(word, SPECIALS["<unk>"]) for word in text.split()]
        return [SPECIALS["<s>"], *words, SPECIALS["</s>"]]

    def hidden(self, ids: list[int]) -> FloatArray:
        """The graph's output for one unpadded text: token + position + scaled context."""
        tokens = self.token_table[ids] + self.position_table[: len(ids)]
        context = tokens.sum(axis=0, keepdims=True) * CONTEXT_SCALE
        result: FloatArray = (tokens + context).astype(np.float32)
        return result


def build_tiny_bge_m3(
    folder: Path,
    *,
    hidden_size: int = 8,
    seed: int = 0,
    head_bias: float = -0.05,
    output_rank: int = 3,
    output_name: str = "token_embeddings",
    max_positions: int = 64,
) -> TinyBgeM3:
    """A folder loadable by the ``bge-m3`` profile (given a spec of ``hidden_size``)."""
    rng = np.random.default_rng(seed)
    vocab = {**SPECIALS, **{word: 4 + i for i, word in enumerate(WORDS)}}
    token_table = rng.normal(size=(len(vocab), hidden_size)).astype(np.float32)
    position_table = rng.normal(scale=0.5, size=(max_positions, hidden_size)).astype(np.float32)
    head_weight = rng.normal(size=(hidden_size,)).astype(np.float32)

    (folder / "onnx").mkdir(parents=True, exist_ok=True)
    graph = _graph(token_table, position_table, output_rank=output_rank, output_name=output_name)
    onnx.save_model(
        graph,
        str(folder / "onnx" / "model.onnx"),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="model.onnx_data",
        size_threshold=256,  # the two tables; ONNX needs the small constants inline
    )
    _write_tokenizer(folder, vocab)
    write_torch_state_dict(
        folder / "sparse_linear.pt",
        {
            "weight": head_weight.reshape(1, hidden_size),
            "bias": np.array([head_bias], dtype=np.float32),
        },
    )
    return TinyBgeM3(folder, vocab, token_table, position_table, head_weight, head_bias)


def _graph(
    token_table: FloatArray, position_table: FloatArray, *, output_rank: int, output_name: str
) -> onnx.ModelProto:
    hidden = token_table.shape[1]
    nodes = [
        helper.make_node("Gather", ["token_table", "input_ids"], ["tokens"]),
        helper.make_node("Shape", ["input_ids"], ["ids_shape"]),
        helper.make_node("Gather", ["ids_shape", "one"], ["seq_len"], axis=0),
        helper.make_node("Range", ["zero", "seq_len", "one"], ["positions"]),
        helper.make_node("Gather", ["position_table", "positions"], ["position_vectors"]),
        helper.make_node("Add", ["tokens", "position_vectors"], ["embedded"]),
        helper.make_node("Cast", ["attention_mask"], ["mask_float"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask_float", "last_axis"], ["mask3"]),
        helper.make_node("Mul", ["embedded", "mask3"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "seq_axis"], ["summed"], keepdims=1),
        helper.make_node("Mul", ["summed", "scale"], ["context"]),
    ]
    if output_rank == 3:
        nodes.append(helper.make_node("Add", ["embedded", "context"], [output_name]))
        out_shape: list[str | int] = ["batch", "sequence", hidden]
    else:  # a pooled [batch, hidden] output, as some exports have
        nodes.append(helper.make_node("Squeeze", ["context", "seq_axis"], [output_name]))
        out_shape = ["batch", hidden]
    initializers = [
        numpy_helper.from_array(token_table, "token_table"),
        numpy_helper.from_array(position_table, "position_table"),
        numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"),
        numpy_helper.from_array(np.array(1, dtype=np.int64), "one"),
        numpy_helper.from_array(np.array([2], dtype=np.int64), "last_axis"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "seq_axis"),
        numpy_helper.from_array(np.array(CONTEXT_SCALE, dtype=np.float32), "scale"),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_bge_m3",
        inputs=[
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
            helper.make_tensor_value_info(
                "attention_mask", TensorProto.INT64, ["batch", "sequence"]
            ),
        ],
        outputs=[helper.make_tensor_value_info(output_name, TensorProto.FLOAT, out_shape)],
        initializer=initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def _write_tokenizer(folder: Path, vocab: dict[str, int]) -> None:
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        special_tokens=[("<s>", SPECIALS["<s>"]), ("</s>", SPECIALS["</s>"])],
    )
    special_map = {
        "bos_token": "<s>",
        "cls_token": "<s>",
        "eos_token": "</s>",
        "sep_token": "</s>",
        "pad_token": "<pad>",
        "unk_token": "<unk>",
    }
    _save_tokenizer(folder, tokenizer, special_map, max_length=8192, pad_id=SPECIALS["<pad>"])


def _save_tokenizer(
    folder: Path, tokenizer: Tokenizer, special_map: dict[str, str], *, max_length: int, pad_id: int
) -> None:
    """The tokenizer and the small JSON files fastembed reads next to it."""
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "special_tokens_map.json").write_text(json.dumps(special_map))
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"model_max_length": max_length, **special_map})
    )
    (folder / "config.json").write_text(json.dumps({"pad_token_id": pad_id}))


CROSS_SPECIALS = {"[CLS]": 0, "[SEP]": 1, "[PAD]": 2, "[UNK]": 3}


@dataclass(frozen=True)
class TinyCrossEncoder:
    """A cross-encoder whose score is the sum of per-word weights over question and passage.

    Crude, but a real ONNX graph run by fastembed, and ``expected`` computes its score
    independently (unknown words weigh 0).
    """

    folder: Path
    word_weights: dict[str, float]

    def expected(self, query: str, passage: str) -> float:
        words = [*query.lower().split(), *passage.lower().split()]
        return float(sum(self.word_weights.get(word, 0.0) for word in words))


def build_tiny_cross_encoder(folder: Path, word_weights: dict[str, float]) -> TinyCrossEncoder:
    """A folder the ``rerank`` stage loads as a local cross-encoder (``model.onnx``)."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = {**CROSS_SPECIALS, **{word: 4 + i for i, word in enumerate(sorted(word_weights))}}
    table = np.zeros((len(vocab), 1), dtype=np.float32)
    for word, weight in word_weights.items():
        table[vocab[word], 0] = weight
    nodes = [
        helper.make_node("Gather", ["word_weight", "input_ids"], ["weights"]),  # [b, s, 1]
        helper.make_node("Squeeze", ["weights", "last_axis"], ["per_token"]),  # [b, s]
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["per_token", "mask"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "seq_axis"], ["logits"], keepdims=1),  # [b, 1]
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_cross_encoder",
        inputs=[
            helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
            for name in ("input_ids", "attention_mask", "token_type_ids")
        ],
        outputs=[helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[
            numpy_helper.from_array(table, "word_weight"),
            numpy_helper.from_array(np.array([2], dtype=np.int64), "last_axis"),
            numpy_helper.from_array(np.array([1], dtype=np.int64), "seq_axis"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save_model(model, str(folder / "model.onnx"))

    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", CROSS_SPECIALS["[CLS]"]), ("[SEP]", CROSS_SPECIALS["[SEP]"])],
    )
    special_map = {
        "cls_token": "[CLS]",
        "sep_token": "[SEP]",
        "pad_token": "[PAD]",
        "unk_token": "[UNK]",
    }
    _save_tokenizer(folder, tokenizer, special_map, max_length=512, pad_id=CROSS_SPECIALS["[PAD]"])
    return TinyCrossEncoder(folder, dict(word_weights))

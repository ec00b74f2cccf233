"""An ONNX graph of XLM-RoBERTa (BGE-M3's encoder) with random weights, for timing only.

The real BGE-M3 weights cannot be downloaded everywhere, but an encoder's compute time
does not depend on its weights, only on its shapes. :func:`write_xlmr_graph` writes the
same computation as the real export (embeddings with XLM-R's padding-offset positions,
``layers`` post-norm transformer blocks with erf GELU, inputs ``input_ids`` and
``attention_mask``, output ``token_embeddings`` [batch, sequence, hidden]) with weights
drawn from a seeded normal distribution.

The full size holds 568 million float32 weights (2.3 GB). They are streamed to the
external data file one slice at a time, so building it needs tens of megabytes of
memory, never the whole model.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17  # what the published BGE-M3 export uses; LayerNormalization needs >= 17
IR_VERSION = 8
INPUTS = ("input_ids", "attention_mask")
OUTPUT = "token_embeddings"
# Offsets in the data file are page-aligned, which lets onnxruntime map tensors directly.
_ALIGNMENT = 4096
# Random numbers are drawn and written at most this many at a time (64 MB of float32).
_SLICE_VALUES = 16 * 1024 * 1024
_INIT_STD = 0.02  # BERT's initializer range: keeps activations finite through 24 layers


@dataclass(frozen=True)
class Architecture:
    """The shapes that decide an XLM-RoBERTa encoder's compute time."""

    layers: int = 24
    hidden: int = 1024
    heads: int = 16
    ffn: int = 4096
    vocab_size: int = 250_002
    # 8,192 usable positions; XLM-R numbers positions from padding_idx + 1, so its table
    # has padding_idx + 1 more rows.
    max_positions: int = 8_194
    padding_idx: int = 1
    layer_norm_eps: float = 1e-5

    def __post_init__(self) -> None:
        if min(self.layers, self.hidden, self.heads, self.ffn, self.vocab_size) <= 0:
            raise ValueError("every size of the architecture must be positive")
        if self.hidden % self.heads:
            raise ValueError("hidden must be a multiple of heads")
        if self.max_positions <= self.padding_idx + 1:
            raise ValueError("max_positions must exceed padding_idx + 1")

    @property
    def max_tokens(self) -> int:
        """The longest input the position table allows."""
        return self.max_positions - self.padding_idx - 1

    @property
    def parameters(self) -> int:
        h, f = self.hidden, self.ffn
        embeddings = (self.vocab_size + self.max_positions + 1) * h + 2 * h
        layer = 4 * (h * h + h) + (h * f + f) + (f * h + h) + 4 * h
        return embeddings + self.layers * layer


BGE_M3_ARCHITECTURE = Architecture()


class _WeightWriter:
    """Initializers whose values go to one external data file, written as they are made."""

    def __init__(self, data: BinaryIO, location: str, rng: np.random.Generator) -> None:
        self._data = data
        self._location = location
        self._rng = rng
        self.initializers: list[TensorProto] = []

    def random(self, name: str, shape: tuple[int, ...], std: float = _INIT_STD) -> str:
        def values(count: int) -> np.ndarray:
            return self._rng.standard_normal(count, dtype=np.float32) * np.float32(std)

        return self._external(name, shape, values)

    def filled(self, name: str, shape: tuple[int, ...], value: float) -> str:
        return self._external(name, shape, lambda count: np.full(count, value, dtype=np.float32))

    def constant(self, name: str, value: np.ndarray) -> str:
        """A small tensor kept inside the graph (shapes, axes, scalars)."""
        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def _external(
        self, name: str, shape: tuple[int, ...], values: Callable[[int], np.ndarray]
    ) -> str:
        offset = self._data.seek(0, 2)
        padding = -offset % _ALIGNMENT
        if padding:
            self._data.write(b"\0" * padding)
            offset += padding
        remaining = math.prod(shape)
        while remaining:
            count = min(remaining, _SLICE_VALUES)
            self._data.write(values(count).astype("<f4", copy=False).tobytes())
            remaining -= count
        tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=list(shape))
        tensor.data_location = TensorProto.EXTERNAL
        length = 4 * math.prod(shape)
        for key, entry in (("location", self._location), ("offset", offset), ("length", length)):
            item = tensor.external_data.add()
            item.key = key
            item.value = str(entry)
        self.initializers.append(tensor)
        return name


class _GraphBuilder:
    """Nodes with unique output names, so each block reads like the model's forward()."""

    def __init__(self, weights: _WeightWriter) -> None:
        self.weights = weights
        self.nodes: list[onnx.NodeProto] = []
        self._count = 0

    def op(self, op_type: str, *inputs: str, **attributes: Any) -> str:
        self._count += 1
        output = f"{op_type.lower()}_{self._count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [output], **attributes))
        return output

    def linear(self, x: str, name: str, fan_in: int, fan_out: int) -> str:
        weight = self.weights.random(f"{name}.weight", (fan_in, fan_out))
        bias = self.weights.random(f"{name}.bias", (fan_out,))
        return self.op("Add", self.op("MatMul", x, weight), bias)

    def layer_norm(self, x: str, name: str, size: int, eps: float) -> str:
        scale = self.weights.filled(f"{name}.weight", (size,), 1.0)
        bias = self.weights.filled(f"{name}.bias", (size,), 0.0)
        return self.op("LayerNormalization", x, scale, bias, axis=-1, epsilon=eps)


def _embeddings(g: _GraphBuilder, arch: Architecture) -> str:
    w = g.weights
    word_table = w.random("embeddings.word_embeddings", (arch.vocab_size, arch.hidden))
    words = g.op("Gather", word_table, "input_ids")
    # XLM-R's create_position_ids_from_input_ids: cumsum over non-padding tokens, offset by
    # padding_idx, so padding positions all read row padding_idx.
    pad = w.constant("padding_idx", np.array(arch.padding_idx, dtype=np.int64))
    not_pad = g.op("Cast", g.op("Not", g.op("Equal", "input_ids", pad)), to=TensorProto.INT64)
    axis = w.constant("sequence_axis", np.array(1, dtype=np.int64))
    positions = g.op("Add", g.op("Mul", g.op("CumSum", not_pad, axis), not_pad), pad)
    position_table = w.random("embeddings.position_embeddings", (arch.max_positions, arch.hidden))
    position_vectors = g.op("Gather", position_table, positions)
    token_type = w.random("embeddings.token_type_embeddings", (1, arch.hidden))
    summed = g.op("Add", g.op("Add", words, position_vectors), token_type)
    return g.layer_norm(summed, "embeddings.LayerNorm", arch.hidden, arch.layer_norm_eps)


def _attention_bias(g: _GraphBuilder) -> str:
    """0 where the mask is 1, a large negative number where it is 0: [batch, 1, 1, seq]."""
    w = g.weights
    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    mask4 = g.op("Unsqueeze", mask, w.constant("mask_axes", np.array([1, 2], dtype=np.int64)))
    one = w.constant("one", np.array(1.0, dtype=np.float32))
    minimum = w.constant("mask_min", np.array(np.finfo(np.float32).min, dtype=np.float32))
    return g.op("Mul", g.op("Sub", one, mask4), minimum)


def _layer(g: _GraphBuilder, x: str, bias: str, index: int, arch: Architecture) -> str:
    w = g.weights
    prefix = f"encoder.layer.{index}"
    head_dim = arch.hidden // arch.heads
    split = w.constant(f"{prefix}.split_shape", np.array([0, 0, arch.heads, head_dim]))
    merge = w.constant(f"{prefix}.merge_shape", np.array([0, 0, arch.hidden]))

    def heads(name: str, perm: list[int]) -> str:
        projected = g.linear(x, f"{prefix}.attention.self.{name}", arch.hidden, arch.hidden)
        return g.op("Transpose", g.op("Reshape", projected, split), perm=perm)

    query = heads("query", [0, 2, 1, 3])  # [batch, heads, seq, head_dim]
    key = heads("key", [0, 2, 3, 1])  # [batch, heads, head_dim, seq]
    value = heads("value", [0, 2, 1, 3])
    scale = w.constant(f"{prefix}.scale", np.array(1 / math.sqrt(head_dim), dtype=np.float32))
    scores = g.op("Add", g.op("Mul", g.op("MatMul", query, key), scale), bias)
    context = g.op("MatMul", g.op("Softmax", scores, axis=-1), value)
    merged = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), merge)
    attended = g.linear(merged, f"{prefix}.attention.output.dense", arch.hidden, arch.hidden)
    x = g.layer_norm(
        g.op("Add", attended, x),
        f"{prefix}.attention.output.LayerNorm",
        arch.hidden,
        arch.layer_norm_eps,
    )
    inner = g.linear(x, f"{prefix}.intermediate.dense", arch.hidden, arch.ffn)
    activated = _gelu(g, inner, prefix)
    out = g.linear(activated, f"{prefix}.output.dense", arch.ffn, arch.hidden)
    return g.layer_norm(
        g.op("Add", out, x), f"{prefix}.output.LayerNorm", arch.hidden, arch.layer_norm_eps
    )


def _gelu(g: _GraphBuilder, x: str, prefix: str) -> str:
    """The exact (erf) GELU as torch exports it; onnxruntime fuses it back into one op."""
    w = g.weights
    sqrt2 = w.constant(f"{prefix}.sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))
    one = w.constant(f"{prefix}.gelu_one", np.array(1.0, dtype=np.float32))
    half = w.constant(f"{prefix}.gelu_half", np.array(0.5, dtype=np.float32))
    erf = g.op("Erf", g.op("Div", x, sqrt2))
    return g.op("Mul", g.op("Mul", x, g.op("Add", erf, one)), half)


def write_xlmr_graph(
    model_file: Path,
    arch: Architecture = BGE_M3_ARCHITECTURE,
    *,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Write ``model_file`` and its weights next to it as ``<name>_data``; returns the latter.

    ``progress(done, total)`` is called after each transformer layer.
    """
    model_file.parent.mkdir(parents=True, exist_ok=True)
    data_file = model_file.with_name(model_file.name + "_data")
    rng = np.random.default_rng(seed)
    with data_file.open("wb") as data:
        weights = _WeightWriter(data, data_file.name, rng)
        g = _GraphBuilder(weights)
        x = _embeddings(g, arch)
        bias = _attention_bias(g)
        for index in range(arch.layers):
            x = _layer(g, x, bias, index, arch)
            if progress is not None:
                progress(index + 1, arch.layers)
        g.nodes.append(helper.make_node("Identity", [x], [OUTPUT]))
    graph = helper.make_graph(
        g.nodes,
        "xlm_roberta_random",
        inputs=[
            helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
            for name in INPUTS
        ],
        outputs=[
            helper.make_tensor_value_info(
                OUTPUT, TensorProto.FLOAT, ["batch", "sequence", arch.hidden]
            )
        ],
        initializer=weights.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    # The weights are already in the data file: the graph itself is a few hundred KB.
    model_file.write_bytes(model.SerializeToString())
    return data_file

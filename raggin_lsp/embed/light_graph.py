"""Rewrites the light model's ONNX graph for inference, once, when the model is assembled.

The pinned MiniLM file was exported from PyTorch, whose exporter guards every attention
softmax against NaN (``Where(IsNaN(p), 0, p)``) for query rows whose keys are all masked.
Here a row always sees at least ``[CLS]`` and ``[SEP]``, so the guard never fires, yet
onnxruntime still ran it: two element-wise passes over batch x heads x length^2 scores
per layer, a seventh of the time of a full batch. Dropping it leaves every other node as
it is, so the vectors stay the same.
"""

from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper


def write_inference_graph(source: Path, target: Path) -> int:
    """Write ``source`` without its softmax NaN guards to ``target``; how many were dropped."""
    model = onnx.load(str(source))
    dropped = drop_softmax_nan_guards(model.graph)
    onnx.save(model, str(target))
    return dropped


def drop_softmax_nan_guards(graph: onnx.GraphProto) -> int:
    """Consumers of ``Where(IsNaN(p), 0, p)`` with ``p = Softmax(...)`` read ``p`` directly."""
    producers = {output: node for node in graph.node for output in node.output}
    constants = {tensor.name: tensor for tensor in graph.initializer}
    outputs = {output.name for output in graph.output}
    bypass: dict[str, str] = {}
    removed: set[int] = set()
    for node in graph.node:
        if node.op_type != "Where" or len(node.input) != 3 or node.output[0] in outputs:
            continue
        condition, fallback, value = node.input
        is_nan = producers.get(condition)
        softmax = producers.get(value)
        zero = constants.get(fallback)
        if (
            is_nan is not None
            and is_nan.op_type == "IsNaN"
            and list(is_nan.input) == [value]
            and softmax is not None
            and softmax.op_type == "Softmax"
            and zero is not None
            and not np.any(numpy_helper.to_array(zero))
        ):
            bypass[node.output[0]] = value
            removed.update((id(node), id(is_nan)))
    for node in graph.node:
        for position, name in enumerate(node.input):
            if name in bypass:
                node.input[position] = bypass[name]
    kept = [node for node in graph.node if id(node) not in removed]
    del graph.node[:]
    graph.node.extend(kept)
    return len(bypass)

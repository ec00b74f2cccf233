"""The light model's graph rewrite: the softmax NaN guard goes, the results stay."""

from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from raggin_lsp.embed.light_graph import write_inference_graph


def attention_like_graph(path: Path, *, fallback: float) -> None:
    """scores -> Softmax -> Where(IsNaN(p), fallback, p) -> MatMul(values), as torch exports."""
    nodes = [
        helper.make_node("Softmax", ["scores"], ["p"], axis=-1),
        helper.make_node("IsNaN", ["p"], ["nan"]),
        helper.make_node("Where", ["nan", "fallback", "p"], ["guarded"]),
        helper.make_node("MatMul", ["guarded", "values"], ["out"]),
    ]
    graph = helper.make_graph(
        nodes,
        "attention",
        [
            helper.make_tensor_value_info("scores", TensorProto.FLOAT, [2, 4, 4]),
            helper.make_tensor_value_info("values", TensorProto.FLOAT, [2, 4, 3]),
        ],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 4, 3])],
        initializer=[numpy_helper.from_array(np.array(fallback, np.float32), "fallback")],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def run(path: Path, scores: np.ndarray, values: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"scores": scores, "values": values})[0])


def ops(path: Path) -> Counter[str]:
    return Counter(node.op_type for node in onnx.load(str(path)).graph.node)


def test_the_guard_is_dropped_and_the_output_is_unchanged(tmp_path: Path) -> None:
    source, target = tmp_path / "source.onnx", tmp_path / "target.onnx"
    attention_like_graph(source, fallback=0.0)
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(2, 4, 4)).astype(np.float32)
    scores[:, :, 2:] = -np.inf  # masked keys, as the attention mask makes them
    values = rng.normal(size=(2, 4, 3)).astype(np.float32)

    assert write_inference_graph(source, target) == 1

    assert ops(target) == Counter({"Softmax": 1, "MatMul": 1})
    np.testing.assert_array_equal(run(target, scores, values), run(source, scores, values))


def test_a_where_with_another_fallback_is_kept(tmp_path: Path) -> None:
    source, target = tmp_path / "source.onnx", tmp_path / "target.onnx"
    attention_like_graph(source, fallback=1.0)  # not a guard: dropping it changes results

    assert write_inference_graph(source, target) == 0

    assert ops(target) == ops(source)


def int8_weight_mlp(path: Path, rng: np.random.Generator) -> None:
    """x -> MatMul(dequantized int8 weight) -> Relu -> MatMul(...), stored as the pinned
    MiniLM stores its weights: int8 initializers behind Cast and Mul."""
    nodes, initializers = [], []
    current = "x"
    for layer, (rows, cols) in enumerate([(16, 32), (32, 8)]):
        raw = rng.integers(-127, 128, size=(rows, cols), dtype=np.int8)
        initializers += [
            numpy_helper.from_array(raw, f"w{layer}_int8"),
            numpy_helper.from_array(np.array(0.01, np.float32), f"w{layer}_scale"),
        ]
        nodes += [
            helper.make_node("Cast", [f"w{layer}_int8"], [f"w{layer}_f"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [f"w{layer}_f", f"w{layer}_scale"], [f"w{layer}"]),
            helper.make_node("MatMul", [current, f"w{layer}"], [f"h{layer}"]),
        ]
        current = f"h{layer}"
        if layer == 0:
            nodes.append(helper.make_node("Relu", [current], ["r0"]))
            current = "r0"
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])],
        [helper.make_tensor_value_info(current, TensorProto.FLOAT, ["batch", 8])],
        initializer=initializers,
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def test_products_with_int8_weights_run_in_int8_and_give_nearly_the_same_output(
    tmp_path: Path,
) -> None:
    source, target = tmp_path / "source.onnx", tmp_path / "target.onnx"
    rng = np.random.default_rng(1)
    int8_weight_mlp(source, rng)
    x = rng.normal(size=(4, 16)).astype(np.float32)

    write_inference_graph(source, target)

    assert ops(target)["MatMulInteger"] == 2
    assert ops(target)["MatMul"] == 0
    session = ort.InferenceSession(str(target), providers=["CPUExecutionProvider"])
    (quantized,) = session.run(None, {"x": x})
    (exact,) = ort.InferenceSession(str(source), providers=["CPUExecutionProvider"]).run(
        None, {"x": x}
    )
    cosine = (
        (quantized * exact).sum(1)
        / np.linalg.norm(quantized, axis=1)
        / np.linalg.norm(exact, axis=1)
    )
    assert cosine.min() > 0.99
    assert set(tmp_path.iterdir()) == {source, target}  # no work files left behind

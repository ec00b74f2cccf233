"""Reading BGE-M3's sparse head (a torch.save file) without torch, and safely."""

from pathlib import Path

import numpy as np
import pytest

from raggin_lsp.embed.torch_head import read_linear_head, read_state_dict
from raggin_lsp.errors import ModelError
from tests.support.tiny_models import torch_state_dict_pickle, write_torch_state_dict


def head(hidden: int, seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "weight": rng.normal(size=(1, hidden)).astype(np.float32),
        "bias": np.array([0.25], dtype=np.float32),
    }


@pytest.mark.parametrize("hidden", [pytest.param(8, id="tiny"), pytest.param(1024, id="bge-m3")])
def test_reads_weight_and_bias(tmp_path: Path, hidden: int) -> None:
    tensors = head(hidden)
    path = tmp_path / "sparse_linear.pt"
    write_torch_state_dict(path, tensors)

    weight, bias = read_linear_head(path, hidden)

    np.testing.assert_array_equal(weight, tensors["weight"][0])
    assert bias == pytest.approx(0.25)


def test_reads_a_transposed_view_by_its_strides(tmp_path: Path) -> None:
    matrix = np.arange(6, dtype=np.float32).reshape(2, 3)
    path = tmp_path / "view.pt"
    # Storage holds the matrix row-major; the pickle describes its transpose as a view.
    pickle_bytes = torch_state_dict_pickle({"t": matrix.T})
    write_torch_state_dict(path, {"t": matrix}, pickle_bytes=pickle_bytes)

    assert read_state_dict(path)["t"].tolist() == matrix.T.tolist()


def test_torch_reads_the_file_the_tests_write(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    tensors = head(8)
    path = tmp_path / "sparse_linear.pt"
    write_torch_state_dict(path, tensors)

    loaded = torch.load(path, weights_only=True)

    np.testing.assert_array_equal(loaded["weight"].numpy(), tensors["weight"])


@pytest.mark.parametrize(
    ("storage_global", "message"),
    [
        pytest.param(("os", "system"), "refusing to load os.system", id="os-system"),
        pytest.param(("builtins", "eval"), "refusing to load builtins.eval", id="eval"),
        pytest.param(("torch", "ByteStorage"), "torch.ByteStorage", id="unknown-storage"),
    ],
)
def test_refuses_globals_outside_the_allow_list(
    tmp_path: Path, storage_global: tuple[str, str], message: str
) -> None:
    tensors = head(8)
    path = tmp_path / "evil.pt"
    evil = torch_state_dict_pickle(tensors, storage_global=storage_global)
    write_torch_state_dict(path, tensors, pickle_bytes=evil)

    with pytest.raises(ModelError, match=message):
        read_state_dict(path)


@pytest.mark.parametrize(
    ("tensors", "message"),
    [
        pytest.param({"weight": np.zeros((1, 4), np.float32)}, "lacks", id="no-bias"),
        pytest.param(
            {"weight": np.zeros((2, 8), np.float32), "bias": np.zeros(2, np.float32)},
            "expected",
            id="two-outputs",
        ),
        pytest.param(
            {"weight": np.zeros((1, 4), np.float32), "bias": np.zeros(1, np.float32)},
            r"\(1, 8\)",
            id="wrong-width",
        ),
    ],
)
def test_head_of_the_wrong_shape_is_reported(
    tmp_path: Path, tensors: dict[str, np.ndarray], message: str
) -> None:
    path = tmp_path / "sparse_linear.pt"
    write_torch_state_dict(path, tensors)

    with pytest.raises(ModelError, match=message):
        read_linear_head(path, 8)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param("not-a-zip", id="not-a-zip"),
        pytest.param("short-storage", id="short-storage"),
    ],
)
def test_damaged_file_is_reported(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "sparse_linear.pt"
    if damage == "not-a-zip":
        path.write_bytes(b"this is not a zip file")
    else:
        tensors = head(8)
        # Storages of 4 floats, but the pickle claims 8 floats in the weight's.
        write_torch_state_dict(
            path,
            {"weight": tensors["weight"][:, :4], "bias": tensors["bias"]},
            pickle_bytes=torch_state_dict_pickle(tensors),
        )

    with pytest.raises(ModelError, match="not a readable torch state dict"):
        read_state_dict(path)

"""Reads a small linear head saved with ``torch.save`` (a state dict), without torch.

The file is a zip holding ``<name>/data.pkl``, a protocol-2 pickle of an OrderedDict
whose tensors are rebuilt with ``torch._utils._rebuild_tensor_v2`` from persistent ids
``('storage', torch.FloatStorage, key, location, numel)``, and ``<name>/data/<key>``,
the raw little-endian storages. A pickle can call any global it names, so the
unpickler resolves only the handful of names such a file needs and refuses the rest.
"""

import io
import pickle
import zipfile
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from raggin_lsp.errors import ModelError

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True)
class _StorageType:
    dtype: np.dtype[Any]


_STORAGE_TYPES = {
    "FloatStorage": _StorageType(np.dtype("<f4")),
    "HalfStorage": _StorageType(np.dtype("<f2")),
    "DoubleStorage": _StorageType(np.dtype("<f8")),
}


def _rebuild_tensor_v2(
    storage: npt.NDArray[Any],
    offset: int,
    size: tuple[int, ...],
    stride: tuple[int, ...],
    requires_grad: bool = False,
    backward_hooks: object = None,
    metadata: object = None,
) -> npt.NDArray[Any]:
    del requires_grad, backward_hooks, metadata  # meaningless outside torch
    count = int(np.prod(size)) if size else 1
    last = offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) if count else 0
    if offset < 0 or any(s < 0 for s in stride) or last >= storage.size:
        raise pickle.UnpicklingError("tensor view lies outside its storage")
    view = np.lib.stride_tricks.as_strided(
        storage[offset:],
        shape=size,
        strides=tuple(s * storage.itemsize for s in stride),
        writeable=False,
    )
    return np.array(view)  # a compact copy, independent of the zip buffer


class _StateDictUnpickler(pickle.Unpickler):
    def __init__(self, data: bytes, read_storage: Callable[[str], bytes]) -> None:
        super().__init__(io.BytesIO(data))
        self._read_storage = read_storage

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("collections", "OrderedDict"):
            return OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor_v2
        if module == "torch" and name in _STORAGE_TYPES:
            return _STORAGE_TYPES[name]
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unexpected persistent id {pid!r}")
        _, storage_type, key, _location, numel = pid
        if not isinstance(storage_type, _StorageType) or not isinstance(numel, int):
            raise pickle.UnpicklingError(f"unexpected storage {pid!r}")
        raw = self._read_storage(str(key))
        expected = numel * storage_type.dtype.itemsize
        if len(raw) != expected:
            raise pickle.UnpicklingError(f"storage {key} has {len(raw)} bytes, expected {expected}")
        return np.frombuffer(raw, dtype=storage_type.dtype)


def read_state_dict(path: Path) -> dict[str, npt.NDArray[Any]]:
    """The tensors of a torch state-dict file as numpy arrays, by parameter name."""
    try:
        with zipfile.ZipFile(path) as archive:
            pickles = [name for name in archive.namelist() if name.endswith("/data.pkl")]
            if len(pickles) != 1:
                raise pickle.UnpicklingError("expected exactly one data.pkl")
            prefix = pickles[0].removesuffix("data.pkl")
            byteorder = f"{prefix}byteorder"
            if byteorder in archive.namelist() and archive.read(byteorder).strip() != b"little":
                raise pickle.UnpicklingError("only little-endian files are supported")

            def read_storage(key: str) -> bytes:
                return archive.read(f"{prefix}data/{key}")

            loaded = _StateDictUnpickler(archive.read(pickles[0]), read_storage).load()
    except (OSError, zipfile.BadZipFile, KeyError, pickle.UnpicklingError, EOFError) as error:
        raise ModelError(f"{path} is not a readable torch state dict: {error}") from error
    if not isinstance(loaded, dict) or not all(isinstance(k, str) for k in loaded):
        raise ModelError(f"{path} does not hold a state dict")
    return dict(loaded)


def read_linear_head(path: Path, hidden_size: int) -> tuple[FloatArray, float]:
    """Weight (``hidden_size``,) and bias of a ``Linear(hidden_size, 1)`` head."""
    state = read_state_dict(path)
    weight, bias = state.get("weight"), state.get("bias")
    if weight is None or bias is None:
        raise ModelError(f"{path} lacks 'weight' or 'bias' (found: {sorted(state)})")
    if weight.shape != (1, hidden_size) or bias.shape != (1,):
        raise ModelError(
            f"{path} holds a head of shape {weight.shape} + {bias.shape}; expected "
            f"(1, {hidden_size}) + (1,) for a model {hidden_size} wide"
        )
    return weight[0].astype(np.float32), float(bias[0])

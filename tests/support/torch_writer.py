"""``torch.save`` state-dict files written by hand, so no torch is needed.

The benchmark writes a random BGE-M3 sparse head with it, and the tests write heads of
every shape the reader must accept or refuse. The layout is the one torch 2 writes: a
zip holding ``<name>/data.pkl`` (protocol 2, persistent storage ids), ``<name>/data/<key>``
(raw little-endian storages), ``<name>/byteorder`` and ``<name>/version``.
"""

import struct
import zipfile
from pathlib import Path

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]


def _global(module: str, name: str) -> bytes:
    return b"c" + f"{module}\n{name}\n".encode()


def _str(text: str) -> bytes:
    data = text.encode()
    return b"X" + struct.pack("<I", len(data)) + data  # BINUNICODE


def _int(value: int) -> bytes:
    return b"J" + struct.pack("<i", value)  # BININT


def _tuple(items: list[bytes]) -> bytes:
    return b"(" + b"".join(items) + b"t"  # MARK ... TUPLE


def _empty_ordered_dict() -> bytes:
    return _global("collections", "OrderedDict") + b")R"  # EMPTY_TUPLE REDUCE


def _tensor(key: str, array: FloatArray, storage_global: tuple[str, str]) -> bytes:
    strides = [int(s // array.itemsize) for s in array.strides]
    persistent_id = _tuple(
        [_str("storage"), _global(*storage_global), _str(key), _str("cpu"), _int(array.size)]
    )
    arguments = _tuple(
        [
            persistent_id + b"Q",  # BINPERSID
            _int(0),
            _tuple([_int(n) for n in array.shape]),
            _tuple([_int(s) for s in strides]),
            b"\x89",  # NEWFALSE: requires_grad
            _empty_ordered_dict(),  # backward hooks
        ]
    )
    return _global("torch._utils", "_rebuild_tensor_v2") + arguments + b"R"


def torch_state_dict_pickle(
    tensors: dict[str, FloatArray],
    *,
    storage_global: tuple[str, str] = ("torch", "FloatStorage"),
) -> bytes:
    """``data.pkl`` as torch.save writes it (protocol 2, persistent storage ids)."""
    body = b"".join(
        _str(name) + _tensor(str(index), array, storage_global)
        for index, (name, array) in enumerate(tensors.items())
    )
    return b"\x80\x02" + _empty_ordered_dict() + b"(" + body + b"u" + b"."


def write_torch_state_dict(
    path: Path,
    tensors: dict[str, FloatArray],
    *,
    pickle_bytes: bytes | None = None,
) -> None:
    """A ``.pt`` zip: ``<name>/data.pkl``, ``<name>/data/<key>``, version and byteorder."""
    name = path.stem
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{name}/data.pkl", pickle_bytes or torch_state_dict_pickle(tensors))
        archive.writestr(f"{name}/byteorder", "little")
        for index, array in enumerate(tensors.values()):
            data = np.ascontiguousarray(array, dtype="<f4").tobytes()
            archive.writestr(f"{name}/data/{index}", data)
        archive.writestr(f"{name}/version", "3\n")

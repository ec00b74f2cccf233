"""onnxruntime settings shared by the profiles: execution providers and memory."""

import onnxruntime as ort
import onnxruntime.capi.onnxruntime_pybind11_state as ort_errors

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"


def execution_providers() -> list[str]:
    """CUDA first when onnxruntime-gpu is installed, with the CPU as fallback."""
    available = ort.get_available_providers()
    return [CUDA, CPU] if CUDA in available else [CPU]


# Measured with the light model on 2 cores, 256-token sections: peak RSS grows with the
# batch (attention scores are batch x heads x length^2), 305 MB at batch 1, 560 MB at 8,
# 900 MB at 16, 1.6 GB at 32. Without onnxruntime's CPU arena, batch 32 peaked lower
# (1.0 GB) but batch 8 higher (780 MB, freed blocks stay with the allocator) and ran
# 8% slower, so the arena stays on and the profiles keep batches small instead.
CPU_MEM_ARENA = True


# What onnxruntime and fastembed raise for a broken, missing or unrunnable model. The
# onnxruntime ones derive from Exception only, so they must be named.
ONNX_ERRORS: tuple[type[Exception], ...] = (
    ValueError,
    OSError,
    RuntimeError,
    ort_errors.Fail,
    ort_errors.InvalidArgument,
    ort_errors.InvalidGraph,
    ort_errors.InvalidProtobuf,
    ort_errors.NoSuchFile,
    ort_errors.NotImplemented,
    ort_errors.RuntimeException,
)

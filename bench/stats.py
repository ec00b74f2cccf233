"""Median and 95th percentile of repeated timings, and peak memory of processes."""

import math
import resource
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Summary:
    median: float
    p95: float
    runs: int


def percentile(samples: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default method)."""
    if not samples:
        raise ValueError("no samples")
    if not 0 <= q <= 100:
        raise ValueError("q must lie in 0..100")
    ordered = sorted(samples)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summarize(samples: Sequence[float]) -> Summary:
    return Summary(percentile(samples, 50), percentile(samples, 95), len(samples))


def time_calls(call: Callable[[], object], repeat: int) -> list[float]:
    """Wall-clock seconds of ``repeat`` calls (the caller warms up first)."""
    seconds: list[float] = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return seconds


def _kilobytes_to_mb(value: int) -> float:
    # ru_maxrss is in kilobytes on Linux, in bytes on macOS.
    return value / 1024 / 1024 if sys.platform == "darwin" else value / 1024


def peak_rss_mb_self() -> float:
    return _kilobytes_to_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def peak_rss_mb_children() -> float:
    """The largest peak among the child processes waited for so far."""
    return _kilobytes_to_mb(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)


def peak_rss_mb_of(pid: int) -> float | None:
    """A running process's peak RSS (Linux ``VmHWM``), or None where unknown."""
    return _status_mb(pid, "VmHWM:")


def _status_mb(pid: int, field: str) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return None


def rss_mb_of(pid: int) -> float | None:
    """A running process's resident memory now (Linux ``VmRSS``), or None where unknown."""
    return _status_mb(pid, "VmRSS:")


def child_pids() -> list[int]:
    """This process's running children (Linux ``/proc``; empty elsewhere)."""
    pids: list[int] = []
    for children in Path("/proc/self/task").glob("*/children"):
        try:
            pids += [int(pid) for pid in children.read_text(encoding="ascii").split()]
        except OSError:
            continue
    return sorted(set(pids))

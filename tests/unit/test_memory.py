"""Freed heap memory goes back to the operating system after loading (glibc's malloc_trim)."""

import subprocess
import sys

import pytest

from raggin_lsp.memory import release_free_memory

# Fills the C heap with 1 kB blocks (below glibc's mmap threshold), frees all but the
# last (which pins the heap's top, so free() alone cannot shrink it), then prints the
# resident memory before and after release_free_memory(), in MB.
SCRIPT = """
from pathlib import Path
from raggin_lsp.memory import release_free_memory

def rss_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

blocks = [bytearray(1000) for _ in range(150_000)]
pin = blocks[-1]
del blocks
before = rss_mb()
released = release_free_memory()
print(released, before, rss_mb())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_freed_heap_memory_leaves_the_resident_set() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=60
    )
    released, before, after = completed.stdout.split()
    assert released == "True"
    assert float(before) - float(after) > 50  # of the ~150 MB freed


def test_release_is_safe_to_call_anywhere() -> None:
    assert release_free_memory() in (True, False)

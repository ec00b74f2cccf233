"""A real full disk for tests: a small tmpfs mounted on a folder (needs root, else skip).

A size-limited filesystem makes every layer meet ``ENOSPC`` where it really happens (Qdrant
Edge's files, the manifest, the private reader copies) instead of where a test double
would raise it::

    with small_disk(tmp_path / "disk", 256) as disk:
        fill(disk, leave=4 * 2**20)  # someone else's download takes the rest
"""

import contextlib
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

FILLER = "someone-elses-download"


@contextlib.contextmanager
def small_disk(path: Path, megabytes: int) -> Iterator[Path]:
    """``path`` as a ``megabytes`` MB tmpfs for the block; the test is skipped without root."""
    path.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(path)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip("needs root to mount a small tmpfs as a full disk")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(disk: Path, *, leave: int) -> Path:
    """Take all but ``leave`` bytes of ``disk`` with one file; returns it (unlink to free)."""
    filler = disk / FILLER
    free = shutil.disk_usage(disk).free
    filler.write_bytes(b"\0" * max(0, free - leave))
    return filler

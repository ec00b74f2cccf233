"""One writer at a time per embedded index folder, across processes.

The lock is an OS file lock (``portalocker``: ``flock`` on POSIX, ``LockFileEx`` on
Windows), so a writer killed with SIGKILL releases it with its process: no stale lock
files to clean up. Waiting is bounded, and the waiter is told who it waits for: the
holder writes its process id and command line into the lock file.
"""

import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import portalocker

from raggin_lsp.store.model import IndexBusyError

LOCK_FILE = "raggin-writer.lock"
_POLL_SECONDS = 0.2


@contextmanager
def writer_lock(
    folder: Path,
    *,
    timeout_seconds: float,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    lock_path = folder / LOCK_FILE
    with lock_path.open("a+") as handle:
        deadline = time.monotonic() + timeout_seconds
        told = False
        while True:
            try:
                portalocker.lock(handle, portalocker.LOCK_EX | portalocker.LOCK_NB)
                break
            except portalocker.exceptions.LockException:
                holder = _holder(lock_path)
                if not told and on_wait is not None:
                    on_wait(f"{holder} is writing to the index in {folder}; waiting for it")
                    told = True
                if time.monotonic() >= deadline:
                    raise IndexBusyError(
                        f"{holder[0].upper()}{holder[1:]} has been writing to the index in "
                        f"{folder} for more than {timeout_seconds:.0f} s. Wait for it to "
                        "finish (or stop it), then try again."
                    ) from None
                time.sleep(_POLL_SECONDS)
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "command": " ".join(sys.argv)}))
        handle.flush()
        try:
            yield
        finally:
            portalocker.unlock(handle)


def _holder(lock_path: Path) -> str:
    """Who holds the lock, for people: "process 1234 (raggin-lsp index 16.4.6)"."""
    try:
        data = json.loads(lock_path.read_text(encoding="utf-8") or "{}")
        pid, command = int(data["pid"]), str(data.get("command", "")).strip()
    except (OSError, ValueError, KeyError, TypeError):
        return "another raggin process"
    return f"process {pid} ({command})" if command else f"process {pid}"

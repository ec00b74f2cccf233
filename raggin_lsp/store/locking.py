"""One writer at a time per embedded index folder, across processes.

The lock is an OS file lock (``portalocker``: ``flock`` on POSIX, ``LockFileEx`` on
Windows), so a writer killed with SIGKILL releases it with its process: no stale lock
files to clean up. Waiting is bounded, and the waiter is told why it waits.
"""

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
                if not told and on_wait is not None:
                    on_wait(f"another raggin process is indexing into {folder}; waiting")
                    told = True
                if time.monotonic() >= deadline:
                    raise IndexBusyError(
                        f"Another raggin process has been writing to the index in {folder} "
                        f"for more than {timeout_seconds:.0f} s. Wait for it to finish (or stop "
                        "it), then try again."
                    ) from None
                time.sleep(_POLL_SECONDS)
        try:
            yield
        finally:
            portalocker.unlock(handle)

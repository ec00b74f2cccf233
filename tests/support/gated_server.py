"""``python -m tests.support.gated_server GATE``: the language server over stdio, with the
dense pass of its index jobs held until the file ``GATE`` exists.

The end-to-end test of "searchable at once" uses it to see the server answer lexically
while dense vectors are still to come, then hybrid once it lets the pass go on: the gate
is the server's ``dense_gate`` collaborator (see ``create_server``), nothing is patched.
"""

import sys
import threading
from collections.abc import Callable
from pathlib import Path

from raggin_lsp.server import log
from raggin_lsp.server.features import create_server

_POLL_SECONDS = 0.05


def file_gate(path: Path) -> Callable[[], None]:
    """Blocks the calling (worker) thread until ``path`` exists."""
    opened = threading.Event()

    def hold() -> None:
        while not opened.is_set():
            if path.exists():
                opened.set()
            else:
                opened.wait(_POLL_SECONDS)

    return hold


def main(argv: list[str]) -> int:
    handler = log.configure("INFO", None)
    create_server(handler, dense_gate=file_gate(Path(argv[0]))).start_io()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

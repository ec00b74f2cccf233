"""A stand-in for the Hugging Face Hub that refuses every download and counts the tries.

Point ``HF_ENDPOINT`` at :attr:`FakeHub.endpoint` (before huggingface_hub is imported,
e.g. in a server process's environment): every request is answered ``500``, so a model
download fails the way it does offline, without waiting on a network timeout. fastembed
retries twice, sleeping 3 s then 9 s, so one failed ``bge-m3`` fetch takes about 12 s
and asks for ``/api/models/BAAI/bge-m3`` twice.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _refuse(self) -> None:
        self.server.record(self.path)
        self.send_response(500)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD = do_POST = _refuse

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the test reads :attr:`FakeHub.requests` instead."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.paths: list[str] = []
        self._lock = threading.Lock()

    def record(self, path: str) -> None:
        with self._lock:
            self.paths.append(path)

    def recorded(self) -> list[str]:
        with self._lock:
            return list(self.paths)


class FakeHub:
    """``with FakeHub() as hub: ... hub.model_requests("BAAI/bge-m3")``."""

    def __init__(self) -> None:
        self._server = _Server()
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def requests(self) -> list[str]:
        return self._server.recorded()

    def model_requests(self, repo: str) -> int:
        """How many times a client asked for ``repo``'s files or metadata."""
        return sum(1 for path in self.requests if repo in path)

    def __enter__(self) -> FakeHub:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()

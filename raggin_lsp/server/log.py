"""Server logs forwarded to the client as ``window/logMessage``.

Records logged before the client is connected are kept and sent once it is. pygls's
own chatter (every message it sends and receives) stays out unless it is a warning.
Records from worker threads are handed to the event loop, which owns the transport.
"""

import asyncio
import contextlib
import logging
import sys
import threading
from collections import deque
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from raggin_lsp.server.server import RagginServer

BUFFERED_RECORDS = 500
_LEVELS = (
    (logging.ERROR, types.MessageType.Error),
    (logging.WARNING, types.MessageType.Warning),
    (logging.INFO, types.MessageType.Info),
)
_NOISY = ("pygls", "asyncio", "httpx", "httpcore", "urllib3", "filelock")


def message_type(level: int) -> types.MessageType:
    for threshold, kind in _LEVELS:
        if level >= threshold:
            return kind
    return types.MessageType.Log


def is_noise(record: logging.LogRecord) -> bool:
    return record.levelno < logging.WARNING and record.name.split(".")[0] in _NOISY


class ClientLogHandler(logging.Handler):
    def __init__(self, level: int = logging.INFO) -> None:
        super().__init__(level)
        self._server: RagginServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None
        self._sending = False
        self._pending: deque[tuple[types.MessageType, str]] = deque(maxlen=BUFFERED_RECORDS)
        self.setFormatter(logging.Formatter("[%(name)s] %(message)s"))

    def attach(self, server: "RagginServer") -> None:
        """Start sending (called once the client has said ``initialized``)."""
        self._server = server
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        while self._pending:
            self._send(*self._pending.popleft())

    def emit(self, record: logging.LogRecord) -> None:
        if is_noise(record):
            return
        try:
            message = self.format(record)
        except Exception:
            self.handleError(record)
            return
        kind = message_type(record.levelno)
        if self._server is None or self._loop is None:
            self._pending.append((kind, message))
        elif threading.get_ident() == self._thread:
            self._send(kind, message)
        elif not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._send, kind, message)

    def _send(self, kind: types.MessageType, message: str) -> None:
        if self._server is None or not self._server.connected or self._sending:
            return
        # Records logged while sending (a failing transport) must not be sent in turn.
        self._sending = True
        try:
            # A client that is gone cannot be told; stderr still has the record.
            with contextlib.suppress(Exception):
                self._server.window_log_message(types.LogMessageParams(type=kind, message=message))
        finally:
            self._sending = False


def configure(level: str = "INFO", log_file: str | None = None) -> ClientLogHandler:
    """stderr (never stdout: it carries the protocol), an optional file, and the client."""
    root = logging.getLogger()
    numeric = logging.getLevelName(level.upper())
    root.setLevel(min(numeric, logging.WARNING))
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(logging.WARNING)
    stderr.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(stderr)
    if log_file:
        to_file = logging.FileHandler(log_file, encoding="utf-8")
        to_file.setLevel(numeric)
        to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(to_file)
    client = ClientLogHandler(numeric)
    root.addHandler(client)
    logging.getLogger("pygls").setLevel(logging.WARNING)
    return client

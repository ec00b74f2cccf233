"""A JSON-RPC client that writes raw bytes to a language server's stdin, for fault tests.

pytest-lsp's client types every message by its method, so it cannot send a hover whose
params are a string, or bytes that are not JSON at all. :class:`WireClient` frames
whatever it is given with a ``Content-Length`` header and records every message the
server writes back, so a test can wait (on an event, never a fixed sleep) for the
response to an id and count how many responses each id got::

    async with WireClient.spawn([sys.executable, "-m", "raggin_lsp", "serve"]) as wire:
        await wire.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        wire.send({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {}})
        response = await wire.response(7)
        assert response["error"]["code"] == -32602

Requests the server sends (``workspace/configuration``, progress tokens) are answered
at once with empty results, as a minimal client would.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

Id = int | str
STDERR_LINES_KEPT = 200


def frame(body: bytes) -> bytes:
    """One LSP base-protocol message: the header, a blank line, the body."""
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class ServerExited(RuntimeError):
    """The server process ended while the test was waiting for it."""


class WireClient:
    """Talks to one server process; see the module docstring."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        # Every response, by id (a response with "id": null is kept under None).
        self.responses: dict[Id | None, list[dict[str, Any]]] = {}
        self.notifications: list[dict[str, Any]] = []
        self.request_ids: list[Any] = []  # the id of every request sent, in order
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES_KEPT)
        self._ids = itertools.count(1)
        self._arrived = asyncio.Condition()
        self._tasks = [
            asyncio.create_task(self._read_stdout(), name="wire-stdout"),
            asyncio.create_task(self._read_stderr(), name="wire-stderr"),
        ]

    @classmethod
    @asynccontextmanager
    async def spawn(
        cls,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> AsyncIterator[WireClient]:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, **(env or {})},
            cwd=cwd,
        )
        client = cls(process)
        try:
            yield client
        finally:
            await client.close()

    # -- sending ----------------------------------------------------------------

    def send_bytes(self, body: bytes) -> None:
        """Send ``body`` as one framed message, whatever it holds."""
        assert self.process.stdin is not None
        self.process.stdin.write(frame(body))

    def send(self, message: Any) -> None:
        """Send any JSON value as one message."""
        if isinstance(message, dict) and "method" in message and "id" in message:
            self.request_ids.append(message["id"])
        self.send_bytes(json.dumps(message).encode("utf-8"))

    def next_id(self) -> int:
        return next(self._ids)

    def request(self, method: str, params: Any = None, *, msg_id: Id | None = None) -> Id:
        """Send a request without waiting; returns its id."""
        msg_id = self.next_id() if msg_id is None else msg_id
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return msg_id

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def call(self, method: str, params: Any = None, timeout: float = 10.0) -> Any:
        """Send a request and return its result; an error response raises AssertionError."""
        response = await self.response(self.request(method, params), timeout)
        assert "error" not in response, f"{method} failed: {response['error']}"
        return response.get("result")

    async def drain(self) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.drain()

    # -- receiving --------------------------------------------------------------

    async def wait_until(self, condition: Callable[[], bool], timeout: float = 10.0) -> None:
        """Return once ``condition()`` holds, re-checking it as each message arrives."""

        def done() -> bool:
            return condition() or self.process.returncode is not None

        async with self._arrived:
            await asyncio.wait_for(self._arrived.wait_for(done), timeout)
        if not condition():
            raise ServerExited(self._exit_report())

    async def response(self, msg_id: Id | None, timeout: float = 10.0) -> dict[str, Any]:
        """The (first) response to ``msg_id``, waiting for it."""
        await self.drain()
        await self.wait_until(lambda: msg_id in self.responses, timeout)
        return self.responses[msg_id][0]

    def alive(self) -> bool:
        return self.process.returncode is None

    def _exit_report(self) -> str:
        tail = "\n".join(self.stderr)
        return f"the server exited with {self.process.returncode}; stderr ends:\n{tail}"

    async def _read_stdout(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                length = None
                while True:  # the header lines, up to the blank one
                    line = await stdout.readline()
                    if not line:
                        return
                    if not line.strip():
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                assert length is not None, "a message without Content-Length"
                message = json.loads(await stdout.readexactly(length))
                await self._received(message)
        except asyncio.IncompleteReadError:
            return
        finally:
            async with self._arrived:
                self._arrived.notify_all()

    async def _received(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            self._answer_server_request(message)
        elif "method" in message:
            self.notifications.append(message)
        else:
            self.responses.setdefault(message.get("id"), []).append(message)
        async with self._arrived:
            self._arrived.notify_all()

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        result: Any = None
        if message["method"] == "workspace/configuration":
            result = [None for _ in message["params"]["items"]]
        self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    async def _read_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        while line := await stderr.readline():
            self.stderr.append(line.decode("utf-8", "replace").rstrip())

    # -- ending -----------------------------------------------------------------

    async def close(self, timeout: float = 10.0) -> None:
        """Shut the server down politely if it is alive, else kill it."""
        if self.alive():
            with contextlib.suppress(Exception):
                await self.response(self.request("shutdown"), timeout)
                self.notify("exit")
                await self.drain()
                await asyncio.wait_for(self.process.wait(), timeout)
        if self.alive():
            self.process.kill()
            await self.process.wait()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

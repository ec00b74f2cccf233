"""A fake Ollama server speaking the real wire format, for tests.

In pytest::

    with FakeOllama(FakeScript(reply=["Use ", "`revalidatePath` ", "[1]."])) as fake:
        settings = GenerationSettings(host=fake.host)
        ...
        assert fake.chat_requests[0]["messages"][-1]["content"].endswith("Question: ...")

As a process (for end-to-end tests that start the language server separately)::

    python -m tests.support.fake_ollama --port 0 --config '{"reply": "echo", "token_delay": 0.05}'
        [--record requests.jsonl]

It prints ``READY http://127.0.0.1:<port>`` on stdout once it listens, and with
``--record`` appends every request body it receives to the file as a JSON line.

Wire format (as Ollama 0.12 sends it, and as ``ollama`` 0.6.3 parses it):
- ``GET /api/tags``: ``{"models": [{"name", "model", "modified_at", "size", "digest",
  "details"}]}``; ``GET /api/version``: ``{"version": ...}``; ``GET /``: "Ollama is running".
- ``POST /api/chat`` with ``"stream": true`` (Ollama's default): ``application/x-ndjson``
  with chunked transfer encoding, one ``{"model", "created_at", "message": {"role":
  "assistant", "content"}, "done": false}`` line per token, then a ``"done": true``
  line with ``done_reason``, ``total_duration``, ``eval_count`` and the other counters.
  With ``"stream": false`` one JSON object holding the whole message.
- An unknown model: 404 ``{"error": "model \\"x\\" not found, try pulling it first"}``.

Faults, for the tests of what the user sees when Ollama misbehaves:
- nothing listening: :func:`closed_port_host` (connection refused);
- ``drop_after``: close the socket after that many tokens without ending the chunked
  body, which the client sees as a broken connection, like a crashed server;
- ``error_after``: Ollama's in-stream ``{"error": ...}`` line instead of the next token;
- ``malformed_after``: the line ``malformed_line`` (not an Ollama message) instead of the
  next token, then the rest of the answer;
- a model not in ``models``: Ollama's 404 ``model "x" not found`` error;
- ``first_token_delay``: a model slow to load; ``token_delay``: a slow model.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import select
import socket
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FAKE_VERSION = "0.12.6"
DEFAULT_MODELS = ("qwen2.5-coder:7b",)
ECHO = "echo"

_TOKEN = re.compile(r"\S+\s*|\s+")


def split_tokens(text: str) -> list[str]:
    """Split text into word-sized tokens that concatenate back to it exactly."""
    return _TOKEN.findall(text)


@dataclass
class FakeScript:
    """How the fake behaves; change ``FakeOllama.script`` between requests as needed.

    ``reply`` is the list of tokens to stream, a string (split into words), or
    ``"echo"``: a reply citing ``[1]`` and repeating the last line of the last user
    message (raggin's prompt ends with the question).
    """

    models: Sequence[str] = DEFAULT_MODELS
    reply: Sequence[str] | str = ("The docs say so [1].",)
    token_delay: float = 0.0  # seconds before each token
    first_token_delay: float = 0.0  # seconds before the first token, like loading a model
    drop_after: int | None = None  # close the connection after this many tokens
    error_after: int | None = None  # send an {"error"} line after this many tokens
    error_message: str = "model runner has unexpectedly stopped"
    malformed_after: int | None = None  # send malformed_line after this many tokens
    malformed_line: str = '{"model": "qwen2.5-coder:7b", "message": {"content": "cut'
    done_reason: str = "stop"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FakeScript:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown fake Ollama settings: {sorted(unknown)}")
        return cls(**data)

    def tokens_for(self, request: dict[str, Any]) -> list[str]:
        if self.reply == ECHO:
            users = [m for m in request.get("messages", []) if m.get("role") == "user"]
            content = str(users[-1].get("content", "")) if users else ""
            lines = [line for line in content.splitlines() if line.strip()]
            return split_tokens(f"Echo [1]: {lines[-1] if lines else ''}")
        if isinstance(self.reply, str):
            return split_tokens(self.reply)
        return list(self.reply)


@dataclass
class Recorded:
    method: str
    path: str
    body: dict[str, Any] | None


@dataclass
class _State:
    script: FakeScript
    requests: list[Recorded] = field(default_factory=list)
    record_file: Path | None = None
    client_disconnected: threading.Event = field(default_factory=threading.Event)
    disconnected_at: float | None = None  # time.monotonic() when noticed
    completed_chats: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _model_entry(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": "2025-11-01T10:00:00.000000000Z",
        "size": 4683087332,
        "digest": "dae161e27b0e90dd1856c8bb3209201fd6736d8eb66298e75ed87571486f4364",
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": "qwen2",
            "families": ["qwen2"],
            "parameter_size": "7.6B",
            "quantization_level": "Q4_K_M",
        },
    }


def _known(model: str, models: Sequence[str]) -> bool:
    # Ollama treats "name" as "name:latest".
    full = model if ":" in model else f"{model}:latest"
    return full in models or model in models


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeOllama"
    disable_nagle_algorithm = True  # tokens must leave at once, as Ollama's do
    state: _State  # set on the subclass made per server

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        pass

    # --- helpers -----------------------------------------------------------------
    def _record(self, body: dict[str, Any] | None) -> None:
        entry = Recorded(self.command, self.path, body)
        with self.state.lock:
            self.state.requests.append(entry)
            if self.state.record_file is not None:
                with self.state.record_file.open("a", encoding="utf-8") as out:
                    line = {"method": entry.method, "path": entry.path, "body": body}
                    out.write(json.dumps(line) + "\n")

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_text(self, status: int, text: str) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _read_body(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            return None
        return body if isinstance(body, dict) else None

    def _client_gone(self, wait: float) -> bool:
        """Wait up to ``wait`` seconds; True as soon as the client closes its side."""
        deadline = time.monotonic() + wait
        while True:
            remaining = max(0.0, deadline - time.monotonic())
            readable, _, _ = select.select([self.connection], [], [], min(remaining, 0.05))
            if readable:
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        return True
                except OSError:
                    return True
            if self.state.stopping.is_set():
                return True
            if remaining <= 0:
                return False

    def _note_disconnect(self) -> None:
        self.close_connection = True
        if self.state.stopping.is_set():
            return  # the fake is shutting down; the client did nothing
        with self.state.lock:
            if self.state.disconnected_at is None:
                self.state.disconnected_at = time.monotonic()
        self.state.client_disconnected.set()
        self.close_connection = True

    def _write_chunk(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode() + b"\n"
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    # --- endpoints ---------------------------------------------------------------
    def do_HEAD(self) -> None:
        self._send_text(200, "Ollama is running")

    def do_GET(self) -> None:
        self._record(None)
        script = self.state.script
        if self.path == "/":
            self._send_text(200, "Ollama is running")
        elif self.path == "/api/tags":
            self._send_json(200, {"models": [_model_entry(m) for m in script.models]})
        elif self.path == "/api/version":
            self._send_json(200, {"version": FAKE_VERSION})
        else:
            self._send_text(404, "404 page not found")

    def do_POST(self) -> None:
        body = self._read_body()
        self._record(body)
        if self.path != "/api/chat":
            self._send_text(404, "404 page not found")
            return
        if body is None:
            self._send_json(400, {"error": "invalid request body"})
            return
        script = self.state.script
        model = str(body.get("model", ""))
        if not model:
            self._send_json(400, {"error": "model is required"})
            return
        if not _known(model, script.models):
            self._send_json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        tokens = script.tokens_for(body)
        if body.get("stream", True):
            self._stream(model, tokens, script)
        else:
            self._whole(model, tokens, script)

    def _final(
        self, model: str, tokens: list[str], script: FakeScript, content: str
    ) -> dict[str, Any]:
        return {
            "model": model,
            "created_at": _now(),
            "message": {"role": "assistant", "content": content},
            "done": True,
            "done_reason": script.done_reason,
            "total_duration": 1_500_000_000,
            "load_duration": 50_000_000,
            "prompt_eval_count": 812,
            "prompt_eval_duration": 400_000_000,
            "eval_count": len(tokens),
            "eval_duration": max(1, len(tokens)) * 25_000_000,
        }

    def _whole(self, model: str, tokens: list[str], script: FakeScript) -> None:
        if self._client_gone(script.first_token_delay + script.token_delay * len(tokens)):
            self._note_disconnect()
            return
        self._send_json(200, self._final(model, tokens, script, "".join(tokens)))
        with self.state.lock:
            self.state.completed_chats += 1

    def _stream(self, model: str, tokens: list[str], script: FakeScript) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            if self._client_gone(script.first_token_delay):
                self._note_disconnect()
                return
            for index in range(len(tokens) + 1):
                if index == script.drop_after:
                    self._drop()
                    return
                if index == script.error_after:
                    # What Ollama does when the runner fails mid-answer (e.g. out of memory).
                    self._write_chunk({"error": script.error_message})
                    self.wfile.write(b"0\r\n\r\n")
                    return
                if index == script.malformed_after:
                    data = script.malformed_line.encode() + b"\n"
                    self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                if index == len(tokens):
                    break
                if self._client_gone(script.token_delay):
                    self._note_disconnect()
                    return
                self._write_chunk(
                    {
                        "model": model,
                        "created_at": _now(),
                        "message": {"role": "assistant", "content": tokens[index]},
                        "done": False,
                    }
                )
            self._write_chunk(self._final(model, tokens, script, ""))
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self._note_disconnect()
            return
        with self.state.lock:
            self.state.completed_chats += 1

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a handler may be mid-stream; `stopping` ends it

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients that hang up on a kept-alive connection are normal, not worth a trace.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FakeOllama:
    """The fake server in a background thread; a context manager."""

    def __init__(
        self,
        script: FakeScript | None = None,
        *,
        port: int = 0,
        record_file: Path | None = None,
    ) -> None:
        self._state = _State(script=script or FakeScript(), record_file=record_file)
        handler = type("Handler", (_Handler,), {"state": self._state})
        self._server = _Server(("127.0.0.1", port), handler)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def host(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def script(self) -> FakeScript:
        return self._state.script

    @script.setter
    def script(self, value: FakeScript) -> None:
        self._state.script = value

    @property
    def requests(self) -> list[Recorded]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """Bodies of the ``/api/chat`` requests received, oldest first."""
        return [r.body for r in self.requests if r.path == "/api/chat" and r.body is not None]

    @property
    def client_disconnected(self) -> threading.Event:
        """Set when a client went away before its chat answer was complete."""
        return self._state.client_disconnected

    @property
    def disconnected_at(self) -> float | None:
        """``time.monotonic()`` when the fake noticed the early disconnect."""
        return self._state.disconnected_at

    @property
    def completed_chats(self) -> int:
        return self._state.completed_chats

    def start(self) -> FakeOllama:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._state.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def closed_port_host() -> str:
    """An address where nothing listens: the port was just free and is closed again."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.support.fake_ollama")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--config", default="{}", help="FakeScript fields as a JSON object")
    parser.add_argument("--config-file", type=Path, help="the same JSON, from a file")
    parser.add_argument("--record", type=Path, help="append each request as a JSON line")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    raw = args.config_file.read_text("utf-8") if args.config_file else args.config
    script = FakeScript.from_json(json.loads(raw))
    fake = FakeOllama(script, port=args.port, record_file=args.record)
    with fake:
        print(f"READY {fake.host}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The smallest LSP exchange that proves a configured command really starts the server."""

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any


def _write(stream: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    stream.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    stream.flush()


def _read(stream: IO[bytes]) -> dict[str, Any]:
    length = None
    while True:
        line = stream.readline()
        if not line:
            raise EOFError("the server closed its output before answering")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    if length is None:
        raise ValueError("a message without Content-Length")
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def initialize(
    argv: Sequence[str], root: Path, env: Mapping[str, str] | None = None, timeout: float = 60
) -> dict[str, Any]:
    """Starts ``argv``, sends ``initialize`` (and ``shutdown``/``exit``); the result."""
    process = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=root,
        env=dict(env if env is not None else os.environ),
    )
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        _write(
            process.stdin,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}},
            },
        )
        while True:
            message = _read(process.stdout)
            if message.get("id") == 1 and "method" not in message:
                break
        _write(process.stdin, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        while _read(process.stdout).get("id") != 2:
            pass
        _write(process.stdin, {"jsonrpc": "2.0", "method": "exit"})
        process.wait(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdin.close()
        process.stdout.close()
        if process.stderr is not None:
            process.stderr.close()
    if "error" in message:
        raise AssertionError(f"initialize failed: {message['error']}")
    result: dict[str, Any] = message["result"]
    return result

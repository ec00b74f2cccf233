"""What the server answers to messages it cannot read, through pygls's own read loop.

Each test feeds framed bodies to ``pygls.io_.run_async`` (the loop ``serve`` runs) with
the real server and records what it writes back. Everything here is answered while the
message is read, so the answers are complete when the input ends. The end-to-end
version over a real process is tests/e2e/test_malformed_messages.py.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from cattrs.errors import BaseValidationError
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.io_ import run_async

from raggin_lsp.server.features import create_server
from raggin_lsp.server.protocol import describe_structure_error
from raggin_lsp.server.server import RagginServer
from tests.support.jsonrpc_wire import frame

DOC = {"uri": "file:///project/app/page.tsx"}
POSITION = {"line": 0, "character": 3}


class Recorder:
    """A pygls writer keeping each message the server sends."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data))

    def close(self) -> None:
        pass


def connect(server: RagginServer) -> Recorder:
    recorder = Recorder()
    server.protocol.set_writer(recorder, include_headers=False)
    return recorder


async def feed(server: RagginServer, *bodies: bytes) -> None:
    reader = asyncio.StreamReader()
    reader.feed_data(b"".join(frame(body) for body in bodies))
    reader.feed_eof()
    protocol = server.protocol
    await run_async(threading.Event(), reader, protocol, error_handler=server.report_server_error)


async def answers_to(*bodies: bytes) -> list[dict[str, Any]]:
    server = create_server()
    recorder = connect(server)
    await feed(server, *bodies)
    return [message for message in recorder.sent if "method" not in message]


def request(msg_id: Any, method: str, params: Any = None, **members: Any) -> bytes:
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params, **members}
    return json.dumps(message).encode()


@pytest.mark.parametrize(
    ("body", "msg_id", "code", "fragment"),
    [
        pytest.param(b"{not json", None, -32700, "Parse error", id="not-json"),
        pytest.param(b'{"a": "\xff"}', None, -32700, "Parse error", id="not-utf8"),
        pytest.param(b"[" * 100_000, None, -32700, "Parse error", id="nested-too-deep"),
        pytest.param(b"[1, 2]", None, -32600, "JSON object", id="batch"),
        pytest.param(b'"hover"', None, -32600, "JSON object", id="string"),
        pytest.param(
            b'{"id": 1, "method": "raggin/status"}', 1, -32600, '"jsonrpc": "2.0"', id="no-jsonrpc"
        ),
        pytest.param(
            request(2, "raggin/status", jsonrpc="1.0"), 2, -32600, '"jsonrpc"', id="jsonrpc-1.0"
        ),
        pytest.param(request(3, 5), 3, -32600, "method must be a string", id="method-number"),
        pytest.param(request(1.5, "raggin/status"), None, -32600, "id must be", id="id-float"),
        pytest.param(request(True, "raggin/status"), None, -32600, "id must be", id="id-bool"),
        pytest.param(request(None, "raggin/status"), None, -32600, "id must be", id="id-null"),
        pytest.param(b'{"jsonrpc": "2.0"}', None, -32600, "needs a method", id="empty-message"),
        pytest.param(
            request(4, "textDocument/hover", {}),
            4,
            -32602,
            "params.textDocument: required field missing; params.position: required field",
            id="hover-empty",
        ),
        pytest.param(
            request("s5", "textDocument/hover", "x"),
            "s5",
            -32602,
            "params must be an object, got string",
            id="hover-string",
        ),
        pytest.param(
            request(6, "textDocument/hover", {"textDocument": DOC, "position": {"line": 0}}),
            6,
            -32602,
            "params.position.character: required field missing",
            id="hover-no-character",
        ),
        pytest.param(
            request(
                7,
                "textDocument/hover",
                {"textDocument": DOC, "position": {"line": 0, "character": -5}},
            ),
            7,
            -32602,
            "Position.character should be in range [0:2147483647], but was -5",
            id="hover-negative-character",
        ),
        pytest.param(
            request(
                8,
                "textDocument/hover",
                {"textDocument": DOC, "position": {"line": 2**31, "character": 0}},
            ),
            8,
            -32602,
            "Position.line should be in range",
            id="hover-line-too-big",
        ),
        pytest.param(
            request(
                9,
                "textDocument/codeAction",
                {"textDocument": DOC, "context": {"diagnostics": []}},
            ),
            9,
            -32602,
            "params.range: required field missing",
            id="code-action-no-range",
        ),
        pytest.param(
            request(10, "workspace/executeCommand", [1, 2]),
            10,
            -32602,
            "params must be an object, got array",
            id="command-array",
        ),
        pytest.param(
            request(11, "workspace/executeCommand", 5),
            11,
            -32602,
            "params must be an object, got number",
            id="command-number",
        ),
        pytest.param(
            request(12, "workspace/executeCommand", {"command": 3}),
            12,
            -32602,
            "Command name '3' is not defined",  # cattrs reads 3 as the string "3"
            id="command-name-number",
        ),
        pytest.param(request(13, "exit"), 13, -32600, "exit is a notification", id="exit-with-id"),
        pytest.param(
            request(14, "textDocument/didOpen", {}),
            14,
            -32600,
            "textDocument/didOpen is a notification",
            id="notification-with-id",
        ),
        pytest.param(
            request(15, "raggin/nothing"), 15, -32601, "raggin/nothing", id="unknown-method"
        ),
        pytest.param(
            request(16, "textDocument/completion", "x"),
            16,
            -32601,
            "textDocument/completion",
            id="standard-method-not-served",
        ),
    ],
)
async def test_each_malformed_message_gets_one_error_response(
    body: bytes, msg_id: Any, code: int, fragment: str
) -> None:
    (answer,) = await answers_to(body)
    assert answer["jsonrpc"] == "2.0"
    assert "id" in answer
    assert answer["id"] == msg_id
    assert answer["error"]["code"] == code
    assert fragment in answer["error"]["message"]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b'{"jsonrpc": "2.0", "method": "textDocument/hover"}', id="request-method"),
        pytest.param(
            b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"x": 1}}',
            id="did-open-without-document",
        ),
        pytest.param(b'{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": 5}', id="cancel"),
        pytest.param(b'{"jsonrpc": "2.0", "method": "raggin/nothing"}', id="unknown"),
    ],
)
async def test_notifications_that_cannot_be_read_are_not_answered(body: bytes) -> None:
    assert await answers_to(body) == []


async def test_the_answers_keep_the_order_and_the_server_reads_on() -> None:
    answers = await answers_to(
        request(1, "textDocument/hover", {}),
        b"{oops",
        b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {}}',
        request(2, "raggin/nothing"),
    )
    assert [(answer["id"], answer["error"]["code"]) for answer in answers] == [
        (1, -32602),
        (None, -32700),
        (2, -32601),
    ]


async def test_unknown_members_of_a_message_are_ignored() -> None:
    traced = {"traceparent": "00-54539a4a40ff3248a03ded63822bdf1a-cda15417ab88d44d-01"}
    answers = await answers_to(
        request(1, "raggin/nothing", **traced), request(2, "shutdown", **traced)
    )
    assert answers[0]["error"]["code"] == -32601
    assert answers[1] == {"jsonrpc": "2.0", "id": 2, "result": None}


async def test_requests_after_shutdown_are_invalid() -> None:
    answers = await answers_to(request(1, "shutdown"), request(2, "raggin/status"))
    assert answers[0] == {"jsonrpc": "2.0", "id": 1, "result": None}
    assert answers[1]["id"] == 2
    assert answers[1]["error"]["code"] == -32600
    assert "raggin/status was sent after shutdown" in answers[1]["error"]["message"]


async def test_an_unreadable_client_response_fails_the_request_waiting_for_it() -> None:
    server = create_server()
    connect(server)
    pending = server.protocol.send_request(
        types.WORKSPACE_CONFIGURATION,
        types.ConfigurationParams(items=[types.ConfigurationItem(section="raggin")]),
        msg_id="config-1",
    )
    await feed(server, json.dumps({"jsonrpc": "2.0", "id": "config-1", "result": 5}).encode())
    assert pending.done()
    error = pending.exception()
    assert isinstance(error, JsonRpcException)
    assert "The client's response could not be read" in error.message


def test_structure_errors_name_json_fields_and_stop_after_three() -> None:
    server = create_server()
    params = {"textDocument": 1, "range": 2, "context": 3, "workDoneToken": [4]}
    message = {"jsonrpc": "2.0", "id": 1, "method": "textDocument/codeAction", "params": params}
    with pytest.raises(BaseValidationError) as raised:
        server.protocol.converter.structure(message, types.CodeActionRequest)
    text = describe_structure_error(raised.value)
    assert text.startswith("params.textDocument.uri: invalid value for type, expected str; ")
    assert "text_document" not in text
    assert text.endswith("(and 1 more)")

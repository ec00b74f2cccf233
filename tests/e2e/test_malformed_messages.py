"""Malformed messages against the real server process (``raggin-lsp serve`` over stdio).

Every request gets one error response for its id within a few seconds, whatever its
params hold; notifications are never answered; and the server goes on answering valid
requests. The same cases one by one, in-process, are in
tests/server/test_json_rpc_errors.py.
"""

from __future__ import annotations

from typing import Any

from tests.e2e.wire_harness import Wire
from tests.support.jsonrpc_wire import WireClient

ANSWER_WITHIN = 5.0  # seconds; the errors themselves take milliseconds


def at(uri: str, line: int, character: int) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def span(uri: str, start: int, end: int) -> dict[str, Any]:
    return {
        "textDocument": {"uri": uri},
        "range": {
            "start": {"line": start, "character": 0},
            "end": {"line": end, "character": 0},
        },
        "context": {"diagnostics": []},
    }


def malformed_requests(uri: str) -> list[tuple[str, Any, int, str]]:
    """(method, params, code, part of the message): the requests issue 14 saw go unanswered."""
    return [
        ("textDocument/hover", {}, -32602, "params.position: required field missing"),
        ("textDocument/hover", "x", -32602, "params must be an object, got string"),
        ("textDocument/hover", at(uri, 0, -5), -32602, "Position.character should be in range"),
        (
            "textDocument/codeAction",
            {"textDocument": {"uri": uri}, "context": {"diagnostics": []}},
            -32602,
            "params.range: required field missing",
        ),
        ("workspace/executeCommand", [1, 2], -32602, "params must be an object, got array"),
        ("workspace/executeCommand", 5, -32602, "params must be an object, got number"),
        ("textDocument/hover", at(uri, 2**31, 0), -32602, "Position.line should be in range"),
        ("textDocument/didOpen", {}, -32600, "textDocument/didOpen is a notification"),
        ("nextjs/whatever", {}, -32601, "nextjs/whatever"),
    ]


def error_of(response: dict[str, Any]) -> tuple[int, str]:
    assert "error" in response, f"expected an error, got {response}"
    return response["error"]["code"], response["error"]["message"]


def assert_one_response_each(client: WireClient) -> None:
    """No id was answered twice (``None``, the id of unreadable messages, aside)."""
    repeated = {
        key: len(answers)
        for key, answers in client.responses.items()
        if key is not None and len(answers) > 1
    }
    assert not repeated, f"ids answered more than once: {repeated}"


async def test_malformed_standard_requests_get_errors_and_the_server_goes_on(wire: Wire) -> None:
    client = wire.client
    cases = malformed_requests(wire.page_uri)
    # Sent all at once, without waiting: the answers must not depend on pacing.
    sent = [
        (client.request(method, params), method, code, part) for method, params, code, part in cases
    ]
    for msg_id, method, code, part in sent:
        response = await client.response(msg_id, ANSWER_WITHIN)
        got_code, message = error_of(response)
        assert (got_code, method) == (code, method)
        assert part in message

    hover = await client.call("textDocument/hover", at(wire.page_uri, 0, 9), timeout=60)
    assert hover is not None
    assert "**Next.js" in hover["contents"]["value"]
    versions = await client.call("raggin/versions", {"textDocument": {"uri": wire.page_uri}})
    assert versions["indexed"] == []
    assert versions["latest"] in versions["known"]
    assert client.alive()
    assert_one_response_each(client)


async def test_what_is_not_a_message_is_answered_with_id_null(wire: Wire) -> None:
    client = wire.client
    client.send_bytes(b'{"jsonrpc": "2.0", "id": "cut", "method": ')
    client.send([{"jsonrpc": "2.0", "id": "in-batch", "method": "raggin/status"}])
    client.send({"id": "bare", "method": "raggin/status"})  # no "jsonrpc"; the id can be read
    client.notify("textDocument/didChange", {"textDocument": 5})  # not answered
    client.notify("raggin/$nothing")  # not answered
    status = await client.call("raggin/status", timeout=ANSWER_WITHIN)
    assert status["server"]["name"] == "raggin-lsp"

    await client.wait_until(lambda: len(client.responses.get(None, [])) >= 2, ANSWER_WITHIN)
    codes = sorted(error_of(response)[0] for response in client.responses[None])
    assert codes == [-32700, -32600]
    assert error_of(await client.response("bare", ANSWER_WITHIN))[0] == -32600
    assert "in-batch" not in client.responses
    assert_one_response_each(client)


async def test_positions_outside_the_document_answer_null(wire: Wire) -> None:
    client = wire.client
    uri = wire.page_uri
    missing = uri.replace("page.tsx", "missing.tsx")
    # (Line 0 is the file's first line: a hover there shows its file convention, `page`.)
    for params in (at(uri, 10_000, 0), at(uri, 1, 10_000), at(uri, 3, 10_000), at(missing, 0, 0)):
        assert await client.call("textDocument/hover", params, timeout=ANSWER_WITHIN) is None
    for params in (span(uri, 50, 60), span(uri, 6, 9), span(missing, 0, 0)):
        assert await client.call("textDocument/codeAction", params, timeout=ANSWER_WITHIN) is None
    backwards = await client.call("textDocument/codeAction", span(uri, 5, 1), timeout=ANSWER_WITHIN)
    assert backwards is None or isinstance(backwards, list)
    assert client.alive()


async def test_requests_after_shutdown_are_refused_and_exit_ends_the_process(wire: Wire) -> None:
    client = wire.client
    assert await client.call("shutdown", timeout=ANSWER_WITHIN) is None
    response = await client.response(client.request("raggin/status"), ANSWER_WITHIN)
    code, message = error_of(response)
    assert code == -32600
    assert "after shutdown" in message
    client.notify("exit")
    await client.drain()
    assert await client.process.wait() == 0

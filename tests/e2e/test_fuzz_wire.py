"""Fuzzing the real server over stdio: many random or malformed messages at once.

Each Hypothesis example is a batch of messages sent back to back without waiting for
any answer: requests for random methods (lsprotocol's requests and notifications,
``raggin/*``, the ``raggin.*`` commands) with random JSON params, hovers and code actions
at random positions (negative, beyond the page, beyond 2**31), notifications with random
params, cancellations of requests still in flight, and bodies that are not a message
object at all. Then:

- every request id is answered exactly once, and every error carries a JSON-RPC code
  that names the client's mistake or the request's fate (never -32603, internal error);
- every body that is not a message is answered exactly once, with ``"id": null``;
- notifications are not answered;
- the process is alive, and ``raggin/versions`` right after answers correctly.

One server serves the whole test. The run is bounded and repeatable: a fixed number of
examples (``RAGGIN_FUZZ_EXAMPLES``, 60 by default; ``make fuzz`` runs many more),
derandomized (the same examples every run), no example database written.
Left out on purpose: ``initialize`` and ``shutdown`` (they end the session being
fuzzed), the ``exit`` notification (it ends the process), and ``raggin/index`` and the
``raggin.index`` command (without a version they index the newest Next.js release).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Literal

import attrs
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from tests.e2e.wire_harness import Wire
from tests.support.jsonrpc_wire import Id, WireClient

pytestmark = [pytest.mark.slow]

EXAMPLES = int(os.environ.get("RAGGIN_FUZZ_EXAMPLES", "60"))
BATCH = 40
ANSWERS_WITHIN = 20.0  # seconds for a whole batch; it takes well under one
PAGE = "page://the-open-page"  # replaced by the opened page's URI when sent
OMITTED = "<omitted>"
# Parse error, invalid request, method not found, invalid params, cancelled, request failed.
EXPECTED_ERRORS = {-32700, -32600, -32601, -32602, -32800, -32803}
ODD_TEXT = [
    "\ud800 lone high surrogate",
    "lone low \udfff",
    "\u202eevitcA revreS\u202c",  # right-to-left override
    "עברית: מה זה revalidatePath?",
    "zero\u200bwidth\u200d\ufeffjoin",
    "👩‍👩‍👧‍👦 emoji 🚀 and flags 🇫🇷",
    "e\u0301\u0308\u20dd combining",
    "\x00 nul and \x1b[31m escapes",
]

_SESSION_ENDERS = {types.INITIALIZE, types.SHUTDOWN, types.EXIT}
_LSP_REQUESTS = sorted(
    method
    for method, (message_type, *_) in types.METHOD_TO_TYPES.items()
    if "id" in attrs.fields_dict(message_type) and method not in _SESSION_ENDERS
)
_LSP_NOTIFICATIONS = sorted(
    method
    for method, (message_type, *_) in types.METHOD_TO_TYPES.items()
    if "id" not in attrs.fields_dict(message_type) and method not in _SESSION_ENDERS
)
RAGGIN_REQUESTS = [
    "raggin/search",
    "raggin/ask",
    "raggin/versions",
    "raggin/removeVersion",
    "raggin/models",
    "raggin/status",
    "raggin/diff",
]
RAGGIN_COMMANDS = ["raggin.ask", "raggin.search", "raggin.selectVersion", "raggin.nothing"]


@dataclass(frozen=True)
class Fuzzed:
    """One message of a batch. Request ids are given when it is sent (unique per server)."""

    kind: Literal["request", "notification", "cancel", "garbage"]
    method: str = ""
    params: Any = OMITTED
    id_kind: Literal["int", "str"] = "int"
    raw: bytes = b""
    cancel_at_once: bool = False  # send $/cancelRequest for it right after it


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),  # any Unicode the JSON encoder accepts
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
params = json_values | st.just(OMITTED)
id_kinds = st.sampled_from(["int", "str"])
coordinates = st.one_of(
    st.integers(min_value=0, max_value=8),
    st.integers(min_value=-(2**33), max_value=2**33),
)


def _not_an_object(body: bytes) -> bool:
    try:
        return not isinstance(json.loads(body), dict)
    except (ValueError, RecursionError):
        return True


def _position(line: int, character: int) -> dict[str, int]:
    return {"line": line, "character": character}


random_requests = st.builds(
    Fuzzed,
    kind=st.just("request"),
    method=st.sampled_from(_LSP_REQUESTS + _LSP_NOTIFICATIONS + RAGGIN_REQUESTS),
    params=params,
    id_kind=id_kinds,
)
hovers = st.builds(
    lambda line, character, id_kind: Fuzzed(
        "request",
        types.TEXT_DOCUMENT_HOVER,
        {"textDocument": {"uri": PAGE}, "position": _position(line, character)},
        id_kind,
    ),
    coordinates,
    coordinates,
    id_kinds,
)
code_actions = st.builds(
    lambda start, end, id_kind: Fuzzed(
        "request",
        types.TEXT_DOCUMENT_CODE_ACTION,
        {
            "textDocument": {"uri": PAGE},
            "range": {"start": _position(*start), "end": _position(*end)},
            "context": {"diagnostics": []},
        },
        id_kind,
    ),
    st.tuples(coordinates, coordinates),
    st.tuples(coordinates, coordinates),
    id_kinds,
)
commands = st.builds(
    lambda command, arguments, id_kind: Fuzzed(
        "request",
        types.WORKSPACE_EXECUTE_COMMAND,
        {"command": command, "arguments": arguments},
        id_kind,
    ),
    st.sampled_from(RAGGIN_COMMANDS),
    st.lists(json_values, max_size=2),
    id_kinds,
)
notifications = st.builds(
    Fuzzed,
    kind=st.just("notification"),
    method=st.sampled_from([*_LSP_NOTIFICATIONS, "raggin/nothing"]),
    params=params,
)
questions = st.one_of(
    st.sampled_from(ODD_TEXT),
    st.lists(st.sampled_from(ODD_TEXT), min_size=1, max_size=4).map(" ".join),
    st.sampled_from(ODD_TEXT).map(lambda text: (text + " ") * (2**20 // (len(text) + 1))),
)
odd_questions = st.builds(
    lambda method, question, id_kind, cancel_at_once: Fuzzed(
        "request",
        method,
        {"question": question} if method == "raggin/ask" else {"query": question},
        id_kind,
        cancel_at_once=cancel_at_once,
    ),
    st.sampled_from(["raggin/ask", "raggin/search"]),
    questions,
    id_kinds,
    st.booleans(),
)
cancels = st.just(Fuzzed("cancel", types.CANCEL_REQUEST))
garbage = st.builds(
    lambda raw: Fuzzed("garbage", raw=raw),
    st.binary(min_size=1, max_size=200).filter(_not_an_object)
    | st.sampled_from([b"[]", b"[1, 2]", b"null", b'"text"', b"{", b"\xff\xfe{"]),
)
messages = st.one_of(
    random_requests, hovers, code_actions, commands, notifications, cancels, garbage, odd_questions
)


@dataclass
class Sent:
    """What one batch expects back."""

    request_ids: list[Id]
    unreadable: int  # bodies answered with "id": null


def send(client: WireClient, page_uri: str, batch: list[Fuzzed]) -> Sent:
    sent = Sent([], 0)
    for message in batch:
        if message.kind == "garbage":
            client.send_bytes(message.raw)
            sent.unreadable += 1
            continue
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": message.method}
        if message.kind == "cancel":
            if not sent.request_ids:
                continue
            body["params"] = {"id": sent.request_ids[-1]}
        elif message.params != OMITTED:
            text = json.dumps(message.params).replace(json.dumps(PAGE), json.dumps(page_uri))
            body["params"] = json.loads(text)
        if message.kind == "request":
            number = client.next_id()
            body["id"] = number if message.id_kind == "int" else f"fuzz-{number}"
            sent.request_ids.append(body["id"])
        client.send(body)
        if message.cancel_at_once:
            client.notify(types.CANCEL_REQUEST, {"id": body["id"]})
    return sent


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a hang would repeat for long
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(batch=st.lists(messages, min_size=BATCH // 4, max_size=BATCH))
async def test_every_request_is_answered_once_and_the_server_lives_on(
    wire: Wire, batch: list[Fuzzed]
) -> None:
    client = wire.client
    null_before = len(client.responses.get(None, []))
    sent = send(client, wire.page_uri, batch)
    await client.drain()

    def all_answered() -> bool:
        nulls = len(client.responses.get(None, [])) - null_before
        return nulls >= sent.unreadable and all(i in client.responses for i in sent.request_ids)

    await client.wait_until(all_answered, ANSWERS_WITHIN)
    versions = await client.call("raggin/versions", {"textDocument": {"uri": wire.page_uri}})
    assert versions["latest"] in versions["known"]
    assert client.alive()

    answered_twice = [i for i in sent.request_ids if len(client.responses[i]) != 1]
    assert not answered_twice, f"answered more than once: {answered_twice}"
    assert len(client.responses.get(None, [])) - null_before == sent.unreadable
    unexpected = set(client.responses) - {None} - set(client.request_ids)
    assert not unexpected, f"answers to ids never sent: {unexpected}"
    errors = [
        response["error"]
        for i in sent.request_ids
        for response in client.responses[i]
        if "error" in response
    ]
    odd = [e for e in errors if e.get("code") not in EXPECTED_ERRORS]
    assert not odd, f"unexpected error codes: {odd}"

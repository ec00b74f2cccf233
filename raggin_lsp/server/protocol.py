"""The JSON-RPC layer: every request gets exactly one response, whatever arrives.

pygls reads each message with ``json.loads(body, object_hook=protocol.structure_message)``
and hands the result to ``protocol.handle_message``. When ``structure_message`` raises
(params that do not fit the method, say a hover whose params are ``{}``), its read loop
only logs the error: the request was never answered and the client waited forever.

:class:`RagginProtocol` overrides those two public methods. ``structure_message`` checks
the envelope itself and returns an :class:`Unreadable` instead of raising;
``handle_message`` answers it:

- bytes that are not JSON: ``-32700`` ParseError with ``"id": null`` (pygls reports these
  to ``RagginServer.report_server_error``, which calls :meth:`RagginProtocol.answer_unparsable`);
- JSON that is not a message object (an array, a number, no ``"jsonrpc": "2.0"``, a
  method that is not a string, an id that is not an integer or a string): ``-32600``
  InvalidRequest, with the request's id when it can be read, else ``null``;
- a notification method (``textDocument/didOpen``, ``exit``) sent with an id: ``-32600``;
- params that do not fit the method: ``-32602`` InvalidParams naming the field, e.g.
  ``params.position: required field missing``;
- a request after ``shutdown``: ``-32600``, as the LSP specification asks.

Unknown methods get ``-32601`` MethodNotFound from pygls itself. Notifications are never
answered (JSON-RPC forbids it): one that cannot be read is logged and dropped. A
response from the client that cannot be read fails the server's own pending request
(``workspace/configuration``, say) instead of leaving it waiting.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import attrs
from cattrs import transform_error
from cattrs.errors import BaseValidationError
from cattrs.v import format_exception
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, LanguageServerProtocol

from raggin_lsp.server.params import ParamError, json_kind, register_hooks

if TYPE_CHECKING:
    from cattrs import Converter

    from raggin_lsp.server.server import RagginServer

log = logging.getLogger(__name__)

JSONRPC_VERSION = "2.0"
MsgId = int | str
Kind = Literal["request", "notification", "response", "invalid"]
P = TypeVar("P")
# Field errors named in one InvalidParams message; the rest are counted.
MAX_FIELD_ERRORS = 3
MAX_ERROR_CHARS = 400


@dataclass(frozen=True)
class Unreadable:
    """A message that could not be structured, kept for ``handle_message`` to answer.

    ``kind`` says what it tried to be; ``msg_id`` is its id when that could be read.
    """

    kind: Kind
    error: JsonRpcException
    msg_id: MsgId | None = None
    method: str | None = None


@dataclass
class FailedResponse:
    """The client's unreadable response, as the error its pending request receives."""

    id: MsgId
    error: types.ResponseError
    jsonrpc: str = JSONRPC_VERSION


def readable_id(value: Any) -> MsgId | None:
    """The id as LSP allows it (an integer or a string), else None."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return value


def envelope_problem(data: Any) -> str | None:
    """What makes ``data`` something other than a JSON-RPC 2.0 message, or None."""
    if not isinstance(data, dict):
        return "a message must be a JSON object (LSP has no batches)"
    if data.get("jsonrpc") != JSONRPC_VERSION:
        return 'a message must have "jsonrpc": "2.0"'
    if "method" in data and not isinstance(data["method"], str):
        return "method must be a string"
    if "id" in data and readable_id(data["id"]) is None:
        return "id must be an integer or a string"
    if "method" not in data and "id" not in data:
        return "a message needs a method (request, notification) or an id (response)"
    return None


def describe_structure_error(error: BaseException, root: str = "$") -> str:
    """The fields that failed, as JSON paths, e.g. ``params.position: required field missing``
    (``root`` names what was structured: ``$`` a message, ``$.params`` its params)."""
    if isinstance(error, ParamError):
        return f"{root.removeprefix('$.')}: {error}"
    if not isinstance(error, BaseValidationError):
        return f"{type(error).__name__}: {error}"
    problems = [_with_json_path(line) for line in transform_error(error, root, _format)]
    text = "; ".join(problems[:MAX_FIELD_ERRORS])
    if len(problems) > MAX_FIELD_ERRORS:
        text += f" (and {len(problems) - MAX_FIELD_ERRORS} more)"
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def _format(error: BaseException, type_: Any) -> str:
    """cattrs's wording, plus the reason where it would only say "invalid value"; our own
    checks (:class:`ParamError`) say what they expected themselves."""
    if isinstance(error, ParamError):
        return str(error)
    text = format_exception(error, type_)
    if text == "invalid value" and str(error):
        text += f" ({error})"  # e.g. Position.character should be in range [0:2147483647]
    return text


def _camel(name: str) -> str:
    """lsprotocol's Python attribute name -> the JSON field name (``text_document``)."""
    head, *rest = name.rstrip("_").split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _with_json_path(line: str) -> str:
    """``required field missing @ $.params.text_document`` -> ``params.textDocument: ...``."""
    problem, _, path = line.rpartition(" @ ")
    path = re.sub(r"\.(\w+)", lambda match: "." + _camel(match.group(1)), path)
    path = path.removeprefix("$.").removeprefix("$") or "message"
    return f"{path}: {problem}"


def request_type(method: str, params_type: type) -> type:
    """An lsprotocol-style request message class for a ``raggin/*`` method: ``id``,
    ``params`` (optional when every field of ``params_type`` is), ``method``, ``jsonrpc``."""
    optional = all(item.default is not attrs.NOTHING for item in attrs.fields(params_type))
    params = attrs.field(
        type=params_type, default=attrs.Factory(params_type) if optional else attrs.NOTHING
    )
    return attrs.make_class(
        f"{params_type.__name__.removesuffix('Params')}Request",
        {
            "id": attrs.field(type=cast(type, MsgId)),
            "params": params,
            "method": attrs.field(type=str, default=method),
            "jsonrpc": attrs.field(type=str, default=JSONRPC_VERSION),
        },
        frozen=True,
    )


def _is_notification_type(message_type: type | None) -> bool:
    """An lsprotocol notification class (it has no ``id`` field)."""
    return message_type is not None and "id" not in attrs.fields_dict(message_type)


class RagginProtocol(LanguageServerProtocol):
    """pygls's LSP protocol, answering what it cannot read (see the module docstring).

    It also lets ``$/cancelRequest`` reach the task doing the work, not only pygls's
    future.
    """

    def __init__(self, server: RagginServer, converter: Converter) -> None:
        super().__init__(server, converter)
        self.jobs = server.jobs
        self.converter = converter
        register_hooks(converter)
        self.shutdown_requested = False
        # The raggin/* requests' message classes, filled by features.custom_request.
        self.custom_types: dict[str, type] = {}

    def message_type(self, method: str) -> type | None:
        """lsprotocol's class for an LSP method, ours for a ``raggin/*`` one."""
        return self.custom_types.get(method) or self.get_message_type(method)

    def structure_params(self, value: Any, params_type: type[P]) -> P:
        """``value`` (a command's argument) as ``params_type``, or :class:`ParamError`
        naming the field that does not fit."""
        if value is not None and not isinstance(value, dict):
            raise ParamError(f"params must be an object, got {json_kind(value)}")
        try:
            return self.converter.structure({} if value is None else value, params_type)
        except Exception as error:
            raise ParamError(describe_structure_error(error, "$.params")) from None

    # -- reading ----------------------------------------------------------------

    def structure_message(self, data: dict[str, Any]) -> Any:
        """pygls's ``json.loads`` object hook: every JSON object, innermost first.

        Objects without ``"jsonrpc"`` are params or results (or a top-level object that
        is not a message, which :meth:`handle_message` answers) and stay dicts.
        """
        if "jsonrpc" not in data:
            return data
        problem = envelope_problem(data)
        if problem is not None:
            return self._invalid(data, problem)
        if "method" not in data:
            return self._structure_response(data)
        return self._structure_call(data, data["method"])

    def _structure_call(self, data: dict[str, Any], method: str) -> Any:
        """A request or a notification, typed by lsprotocol when the server handles it."""
        kind: Kind = "request" if "id" in data else "notification"
        message_type = self.message_type(method) if self.handles(method) else None
        if message_type is None:
            # pygls's generic message: an unknown method (answered MethodNotFound) or a
            # custom one. Only the members it has; JSON-RPC lets params be omitted.
            message_type = JsonRPCRequestMessage if kind == "request" else JsonRPCNotification
            members: dict[str, Any] = {"params": data.get("params")}
            members.update((key, data[key]) for key in ("jsonrpc", "id", "method") if key in data)
            data = members
        elif kind == "request" and _is_notification_type(message_type):
            return self._invalid(data, f"{method} is a notification: send it without an id")
        elif method in self.custom_types and data.get("params") is None:
            data = {key: value for key, value in data.items() if key != "params"}
        elif data.get("params") is not None and not isinstance(data["params"], dict):
            # Every LSP request and notification the server handles takes an object.
            problem = f"params must be an object, got {json_kind(data['params'])}"
            return self._invalid_params(kind, data, problem)
        try:
            return self.converter.structure(data, message_type)
        except Exception as error:
            return self._invalid_params(kind, data, describe_structure_error(error))

    def handles(self, method: str) -> bool:
        """Whether a handler (pygls's or ours) is registered for ``method``."""
        return (
            method == types.CANCEL_REQUEST  # pygls handles it before looking for features
            or method in self.fm.builtin_features
            or method in self.fm.features
        )

    def _structure_response(self, data: dict[str, Any]) -> Any:
        """A response to one of the server's requests, structured by pygls."""
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            cause = describe_structure_error(error.__cause__ or error)
            return Unreadable(
                "response",
                JsonRpcInvalidRequest(message=f"The client's response could not be read: {cause}"),
                readable_id(data.get("id")),
            )

    def _invalid_params(self, kind: Kind, data: dict[str, Any], problem: str) -> Unreadable:
        method = data["method"]
        error = JsonRpcInvalidParams(message=f"Invalid params for {method}: {problem}")
        return Unreadable(kind, error, readable_id(data.get("id")), method)

    def _invalid(self, data: Any, problem: str) -> Unreadable:
        """An InvalidRequest, for the request's id when it has a readable one."""
        is_request = isinstance(data, dict) and "method" in data
        msg_id = readable_id(data.get("id")) if is_request else None
        return Unreadable(
            "invalid", JsonRpcInvalidRequest(message=f"Invalid request: {problem}"), msg_id
        )

    # -- dispatching ------------------------------------------------------------

    def handle_message(self, message: Any) -> None:
        """Answer what could not be read; hand the rest to pygls (after two checks)."""
        if not isinstance(message, Unreadable) and not attrs.has(type(message)):
            # Not an object with "jsonrpc" (those became messages in structure_message).
            message = self._invalid(message, envelope_problem(message) or "not a message")
        if isinstance(message, Unreadable):
            self._answer_unreadable(message)
            return
        method = getattr(message, "method", None)
        msg_id = getattr(message, "id", None)
        if method is not None and msg_id is not None:  # a request
            if self.shutdown_requested:
                error = f"{method} was sent after shutdown"
                self.send_error(msg_id, JsonRpcInvalidRequest(message=f"Invalid request: {error}"))
                return
            if method == types.SHUTDOWN:
                self.shutdown_requested = True
        if method == types.CANCEL_REQUEST:
            request_id = getattr(getattr(message, "params", None), "id", None)
            if request_id is not None:
                self.jobs.cancel_request(request_id)
        super().handle_message(message)

    def _answer_unreadable(self, message: Unreadable) -> None:
        if message.kind == "notification":
            log.warning("Dropped the %s notification: %s", message.method, message.error.message)
        elif message.kind == "response":
            log.warning("%s", message.error.message)
            if message.msg_id is not None:  # fail the server's request waiting for it
                super().handle_message(
                    FailedResponse(message.msg_id, message.error.to_response_error())
                )
        else:
            log.warning("Answered %s: %s", _label(message), message.error.message)
            self.send_error(message.msg_id, message.error)

    # -- answering --------------------------------------------------------------

    def answer_unparsable(self, error: Exception) -> None:
        """Answer a body that is not JSON (called from ``report_server_error``)."""
        log.warning("Answered a message that is not JSON: %s", error)
        self.send_error(None, JsonRpcParseError(message=f"Parse error: {error}"))

    def send_error(self, msg_id: MsgId | None, error: JsonRpcException) -> None:
        """Send an error response; ``msg_id`` None is sent as ``"id": null``.

        pygls has no public call for a response outside a handler, so this uses
        ``_send_data``, the transport method of the base class (pinned by
        tests/server/test_json_rpc_errors.py). It takes a plain dict because lsprotocol's
        ``ResponseErrorMessage`` leaves out an id that is None.
        """
        body = {
            "jsonrpc": JSONRPC_VERSION,
            "id": msg_id,
            "error": self.converter.unstructure(error.to_response_error()),
        }
        self._send_data(body)


def _label(message: Unreadable) -> str:
    what = f"request {message.msg_id!r}" if message.msg_id is not None else "a message"
    return f"{what} ({message.method})" if message.method else what

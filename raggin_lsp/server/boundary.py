"""The one place where features catch broadly: errors become JSON-RPC responses.

- :class:`~raggin_lsp.server.params.ParamError` -> ``InvalidParams`` (-32602) with the
  message naming the field;
- :class:`~raggin_lsp.errors.RagginError` -> ``RequestFailed`` (-32803) with the
  message as it is (it is written for the user);
- anything else is a bug: logged with its traceback and the feature's name, answered
  ``InternalError`` (-32603) pointing at the log.

Cancellation is answered ``RequestCancelled`` (-32800).
Quiet features (hover, code actions) log and return their fallback instead: a broken
hover must not pop up errors while the user moves the cursor.
"""

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcRequestCancelled,
)

from raggin_lsp.errors import RagginError
from raggin_lsp.server.params import ParamError

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


class RequestFailed(JsonRpcException):
    CODE = types.LSPErrorCodes.RequestFailed.value


def to_response(feature: str, error: Exception) -> JsonRpcException:
    if isinstance(error, JsonRpcException):
        return error
    if isinstance(error, ParamError):
        log.info("%s: invalid params: %s", feature, error)
        return JsonRpcInvalidParams(message=f"Invalid params: {error}")
    if isinstance(error, RagginError):
        log.warning("%s: %s", feature, error)
        return RequestFailed(message=str(error))
    log.error("%s failed unexpectedly", feature, exc_info=error)
    return JsonRpcInternalError(
        message=f"raggin: {feature} failed unexpectedly ({type(error).__name__}: {error}); "
        "the server log has the details"
    )


def boundary(feature: str) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """Wrap an async request handler: errors are answered, never raised through."""

    def decorate(handler: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @functools.wraps(handler)
        async def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return await handler(*args, **kwargs)
            except asyncio.CancelledError:
                # pygls waits forever on a command whose task ends cancelled (its
                # generator only handles exceptions), so cancellation is answered here.
                raise JsonRpcRequestCancelled(message=f"{feature} was cancelled") from None
            except Exception as error:
                raise to_response(feature, error) from error

        return wrapped

    return decorate


def quiet(
    feature: str, fallback: Any
) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """Like :func:`boundary`, but answer ``fallback`` (logging why) instead of an error."""

    def decorate(handler: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @functools.wraps(handler)
        async def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return await handler(*args, **kwargs)
            except RagginError as error:
                log.info("%s: %s", feature, error)
            except Exception:
                log.exception("%s failed unexpectedly", feature)
            result: R = fallback
            return result

        return wrapped

    return decorate

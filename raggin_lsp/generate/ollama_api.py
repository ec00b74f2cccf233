"""The only module that talks to Ollama, through the ``ollama`` client.

Failures become :class:`OllamaError` subclasses whose message tells the user what
happened and how to fix it; nothing from httpx or the client leaks out.
"""

import functools
import logging
import ssl
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

import httpx
import ollama

from raggin_lsp.errors import RagginError

logger = logging.getLogger(__name__)

# Connecting to a local server is instant or it fails; reading has no limit because a
# model can take a minute to load before the first token (cancel the task instead).
STREAM_TIMEOUT = httpx.Timeout(None, connect=5.0)
PROBE_TIMEOUT = httpx.Timeout(2.0)


class OllamaError(RagginError):
    """Ollama could not (fully) answer; the message says why and what to do."""


class OllamaUnreachableError(OllamaError):
    def __init__(self, host: str) -> None:
        super().__init__(
            f"Ollama is not reachable at {host}. Start it with `ollama serve`, "
            "or set `ollamaHost` to the address where it runs."
        )
        self.host = host


class ModelNotInstalledError(OllamaError):
    def __init__(self, model: str, host: str) -> None:
        super().__init__(
            f"The model `{model}` is not installed in Ollama at {host}. "
            f"Install it with `ollama pull {model}`, or choose an installed model in the settings."
        )
        self.model = model


class OllamaStreamError(OllamaError):
    """Ollama failed or the connection broke while answering."""


@dataclass(frozen=True)
class ChatPiece:
    """One streamed message fragment; the last one has ``done`` and the run's figures."""

    content: str
    done: bool = False
    done_reason: str | None = None
    stats: dict[str, float] = field(default_factory=dict)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default TLS settings, built once per process and shared by every client.

    httpx builds them for each new client, reading the whole CA bundle even for a plain
    ``http://`` host: 20-40 ms an ask paid before its first token (300 ms on a busy
    machine), although the settings never change.
    """
    return httpx.create_ssl_context()


def _client(host: str, timeout: httpx.Timeout) -> ollama.AsyncClient:
    try:
        return ollama.AsyncClient(host=host, timeout=timeout, verify=tls_context())
    except (ValueError, httpx.InvalidURL) as error:
        raise OllamaError(f"`{host}` is not a valid Ollama address: {error}") from None


def _clean(options: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Options without unset (None) values, which Ollama would reject as nulls."""
    kept = {key: value for key, value in (options or {}).items() if value is not None}
    return kept or None


def _stats(part: ollama.ChatResponse) -> dict[str, float]:
    stats: dict[str, float] = {}
    if part.prompt_eval_count is not None:
        stats["prompt_tokens"] = float(part.prompt_eval_count)
    if part.eval_count is not None:
        stats["eval_tokens"] = float(part.eval_count)
        if part.eval_duration:
            stats["tokens_per_s"] = part.eval_count / (part.eval_duration / 1e9)
    if part.load_duration is not None:
        stats["load_s"] = part.load_duration / 1e9
    return stats


def _translate_response_error(error: ollama.ResponseError, model: str, host: str) -> OllamaError:
    message = str(error.error)
    if error.status_code == 404 and "model" in message.lower() and "not found" in message.lower():
        return ModelNotInstalledError(model, host)
    if error.status_code == 404:
        return OllamaError(
            f"{host} answered 404 to a chat request: is it an Ollama server? Check `ollamaHost`."
        )
    return OllamaStreamError(f"Ollama reported an error: {message}")


async def stream_chat(
    *,
    host: str,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any] | None = None,
) -> AsyncGenerator[ChatPiece, None]:
    """Stream a chat answer, fragment by fragment.

    Closing this generator, or cancelling the task iterating it, closes the HTTP
    response and the client, so Ollama sees the disconnect and stops generating.
    Raises :class:`OllamaError` subclasses, including when the stream ends without
    Ollama's final ``done`` line.
    """
    async with _client(host, STREAM_TIMEOUT) as client:
        try:
            stream = await client.chat(
                model=model, messages=messages, stream=True, options=_clean(options)
            )
            async with aclosing(stream):
                async for part in stream:
                    content = part.message.content or ""
                    if part.done:
                        yield ChatPiece(content, True, part.done_reason, _stats(part))
                        return
                    if content:
                        yield ChatPiece(content)
        except ollama.ResponseError as error:
            raise _translate_response_error(error, model, host) from None
        except (httpx.ConnectError, httpx.ConnectTimeout, ConnectionRefusedError) as error:
            logger.info("Ollama at %s unreachable: %s", host, error)
            raise OllamaUnreachableError(host) from None
        except (httpx.HTTPError, OSError) as error:
            logger.warning("Ollama stream from %s failed: %r", host, error)
            raise OllamaStreamError("the connection to Ollama broke") from None
        except (ValueError, AttributeError, ollama.RequestError) as error:
            # Malformed lines: json and pydantic errors are ValueErrors; a line that is
            # JSON but not an object fails in the client's ``part.get("error")``.
            logger.warning("Unreadable Ollama stream from %s: %r", host, error)
            raise OllamaStreamError("Ollama sent a reply that could not be read") from None
    raise OllamaStreamError("Ollama closed the stream before the answer was complete")


async def list_models(host: str) -> list[str]:
    """Names of the models installed in Ollama at ``host``, sorted."""
    async with _client(host, PROBE_TIMEOUT) as client:
        try:
            listing = await client.list()
        except (httpx.ConnectError, httpx.TimeoutException, ConnectionError):
            raise OllamaUnreachableError(host) from None
        except ollama.ResponseError as error:
            raise OllamaError(
                f"Ollama at {host} could not list its models: {error.error}"
            ) from None
        except (httpx.HTTPError, OSError, ValueError) as error:
            raise OllamaError(
                f"Ollama at {host} sent an unexpected model list ({error!r})"
            ) from None
    return sorted({m.model for m in listing.models if m.model})


async def is_reachable(host: str) -> bool:
    """Whether an Ollama server answers at ``host`` within a couple of seconds."""
    try:
        await list_models(host)
    except OllamaError:
        return False
    return True


def chat_once(
    *,
    host: str,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any] | None = None,
    timeout: httpx.Timeout = PROBE_TIMEOUT,
) -> str:
    """One whole (not streamed) chat reply, blocking; for short helper prompts.

    Raises :class:`OllamaError` subclasses: at once when nothing listens at ``host`` or
    the model is not installed, else after ``timeout``.
    """
    try:
        client = ollama.Client(host=host, timeout=timeout, verify=tls_context())
    except (ValueError, httpx.InvalidURL) as error:
        raise OllamaError(f"`{host}` is not a valid Ollama address: {error}") from None
    with client:
        try:
            reply = client.chat(
                model=model, messages=messages, stream=False, options=_clean(options)
            )
        except ollama.ResponseError as error:
            raise _translate_response_error(error, model, host) from None
        except (httpx.ConnectTimeout, ConnectionError):  # the client's own connect failure
            raise OllamaUnreachableError(host) from None
        except httpx.TimeoutException:
            raise OllamaStreamError(f"Ollama did not answer within {timeout.read} s") from None
        except (httpx.HTTPError, OSError, ValueError, ollama.RequestError) as error:
            raise OllamaStreamError(f"Ollama's reply could not be read ({error!r})") from None
    return reply.message.content or ""

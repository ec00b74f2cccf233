"""Answer one question: prompt Ollama, stream its answer, cite the sources.

Decisions:
- No sources (the search found nothing): the model is not asked. Without sources it
  could only answer from memory, possibly for another Next.js version, which is what
  this tool exists to avoid. The answer says nothing matched in that version's docs.
- Whatever goes wrong with Ollama (not running, model missing, no first fragment within
  ``first_token_timeout``, the stream breaking or unreadable), the call still succeeds:
  ``on_chunk`` receives a note saying what happened and how to fix it, then
  :func:`extractive_answer` (the best sections quoted, with ``[n]`` citations). Model
  text streamed before a failure is kept, and the note and the quotes follow it.
- ``generated`` is always exactly what ``on_chunk`` received, notes included; ``notice``
  holds the note's text alone, for clients that show it apart.
- Cancelling the awaiting task closes the Ollama stream and re-raises
  :class:`asyncio.CancelledError`.
"""

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import aclosing

from raggin_lsp.generate.citations import citations_in, note, render_answer
from raggin_lsp.generate.extractive import extractive_answer, no_results_answer
from raggin_lsp.generate.model import Answer, ContextItem, GenerationSettings, Turn
from raggin_lsp.generate.ollama_api import (
    ModelNotInstalledError,
    OllamaError,
    OllamaUnreachableError,
    stream_chat,
)
from raggin_lsp.generate.prompt import build_messages
from raggin_lsp.retrieve.model import SearchResult

logger = logging.getLogger(__name__)

Emit = Callable[[str], None]


def _fallback_notice(error: OllamaError) -> str:
    if isinstance(error, OllamaUnreachableError | ModelNotInstalledError):
        return f"{error} Until then, answers quote the docs without a model."
    return f"The model could not answer ({error}), so this answer quotes the docs instead."


def _cut_off_notice(error: OllamaError) -> str:
    return (
        f"The answer was cut off: {error}. The docs' own words follow; "
        "ask again to get a complete answer."
    )


def _slow_notice(settings: GenerationSettings) -> str:
    return (
        f"Ollama sent no answer within {settings.first_token_timeout:g} s, so this answer "
        f"quotes the docs instead. The model `{settings.model}` may still be loading or be "
        "too large for this machine: ask again in a minute, or choose a smaller model."
    )


async def answer_question(
    question: str,
    results: Sequence[SearchResult],
    *,
    version: str,
    settings: GenerationSettings | None = None,
    context: Sequence[ContextItem] = (),
    history: Sequence[Turn] = (),
    on_chunk: Emit | None = None,
) -> Answer:
    """Answer ``question`` from ``results`` (best first) of the Next.js ``version`` docs."""
    settings = settings or GenerationSettings()
    emit: Emit = on_chunk or (lambda _chunk: None)
    started = time.monotonic()
    chunks: list[str] = []

    def send(chunk: str) -> None:
        chunks.append(chunk)
        emit(chunk)

    def finish(notice: str | None, *, used_llm: bool, timings: dict[str, float]) -> Answer:
        generated = "".join(chunks)
        citations = citations_in(generated, results) if results else []
        timings["total_s"] = time.monotonic() - started
        return Answer(
            text=render_answer(generated, citations, version),
            generated=generated,
            citations=citations,
            model=settings.model if used_llm else None,
            version=version,
            used_llm=used_llm,
            notice=notice,
            timings=timings,
        )

    if not results:
        send(no_results_answer(question, version))
        return finish(None, used_llm=False, timings={})

    messages = build_messages(
        question, results, version=version, settings=settings, context=context, history=history
    )
    timings: dict[str, float] = {}
    failure: str | None = None
    length_notice: str | None = None
    try:
        stream = stream_chat(
            host=settings.host, model=settings.model, messages=messages, options=settings.options
        )
        # aclosing: even if on_chunk raises or the deadline passes, the HTTP stream is
        # closed at once, not at GC.
        async with aclosing(stream), asyncio.timeout(settings.first_token_timeout) as deadline:
            async for piece in stream:
                if piece.content:
                    if not chunks:
                        deadline.reschedule(None)
                        timings["first_token_s"] = time.monotonic() - started
                    send(piece.content)
                if piece.done:
                    timings.update(piece.stats)
                    if piece.done_reason == "length":
                        length_notice = (
                            "The answer was cut off at the length limit (`num_predict`); "
                            "raise it in the generation options for longer answers."
                        )
    except TimeoutError:
        logger.info("No answer from Ollama within %s s", settings.first_token_timeout)
        failure = _slow_notice(settings)
    except OllamaError as error:
        logger.info("Ollama could not answer: %s", error)
        failure = _cut_off_notice(error) if chunks else _fallback_notice(error)

    used_llm = bool("".join(chunks).strip())
    if failure is None and not used_llm:
        failure = "The model returned an empty answer, so this answer quotes the docs instead."
    if failure is not None:
        lead = "\n\n" if used_llm else ""
        send(f"{lead}{note(failure)}\n\n")
        send(extractive_answer(question, results, version))
        return finish(failure, used_llm=used_llm, timings=timings)
    if length_notice is not None:
        send(f"\n\n{note(length_notice)}\n")
    return finish(length_notice, used_llm=True, timings=timings)

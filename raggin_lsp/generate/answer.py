"""Answer one question: prompt Ollama, stream its answer, cite the sources.

Decisions:
- No sources (the search found nothing): the model is not asked. Without sources it
  could only answer from memory, possibly for another Next.js version, which is what
  this tool exists to avoid. The answer says nothing matched in that version's docs.
- Ollama unreachable, model missing, or failing before the first fragment: the call
  still succeeds with :func:`extractive_answer` and a ``notice`` saying how to fix it.
- The stream breaks after some fragments: the partial answer is kept and the
  ``notice`` says it was cut off.
- Whenever no model output is streamed, ``on_chunk`` receives the whole fallback text
  once, so streaming clients show it too; ``generated`` is always exactly what
  ``on_chunk`` received.
- Cancelling the awaiting task closes the Ollama stream and re-raises
  :class:`asyncio.CancelledError`.
"""

import logging
import time
from collections.abc import Callable, Sequence
from contextlib import aclosing

from raggin_lsp.generate.citations import citations_in, render_answer
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
    return f"The answer was cut off: {error}. Ask again to get a complete answer."


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

    def without_model(generated: str, notice: str | None) -> Answer:
        emit(generated)
        return Answer(
            text=render_answer(generated, citations_in(generated, results), version, notice),
            generated=generated,
            citations=citations_in(generated, results) if results else [],
            model=None,
            version=version,
            used_llm=False,
            notice=notice,
            timings={"total_s": time.monotonic() - started},
        )

    if not results:
        return without_model(no_results_answer(question, version), None)

    messages = build_messages(
        question, results, version=version, settings=settings, context=context, history=history
    )
    chunks: list[str] = []
    timings: dict[str, float] = {}
    notice: str | None = None
    try:
        stream = stream_chat(
            host=settings.host, model=settings.model, messages=messages, options=settings.options
        )
        # aclosing: even if on_chunk raises, the HTTP stream is closed at once, not at GC.
        async with aclosing(stream):
            async for piece in stream:
                if piece.content:
                    if not chunks:
                        timings["first_token_s"] = time.monotonic() - started
                    chunks.append(piece.content)
                    emit(piece.content)
                if piece.done:
                    timings.update(piece.stats)
                    if piece.done_reason == "length":
                        notice = (
                            "The answer was cut off at the length limit (`num_predict`); "
                            "raise it in the generation options for longer answers."
                        )
    except OllamaError as error:
        if not chunks:
            logger.info("Answering without a model: %s", error)
            return without_model(
                extractive_answer(question, results, version), _fallback_notice(error)
            )
        notice = _cut_off_notice(error)

    generated = "".join(chunks)
    if not generated.strip():
        notice = "The model returned an empty answer, so this answer quotes the docs instead."
        return without_model(extractive_answer(question, results, version), notice)
    citations = citations_in(generated, results)
    timings["total_s"] = time.monotonic() - started
    return Answer(
        text=render_answer(generated, citations, version, notice),
        generated=generated,
        citations=citations,
        model=settings.model,
        version=version,
        used_llm=True,
        notice=notice,
        timings=timings,
    )

"""Open files embedded before a question about them arrives.

A question asked with a ``textDocument`` lets that file steer its retrieval, which costs
an embedding of the file's start (tens of milliseconds on a laptop core, all of it before
the first streamed token). The Assistant keeps the vectors of recent files; this module
fills them when a file opens, after a pause in typing, and for every open file once the
embedding model has loaded, so that a question finds its file's vector ready.
"""

import asyncio
import logging
from typing import TYPE_CHECKING

from raggin_lsp.errors import RagginError
from raggin_lsp.server.ask import file_context

if TYPE_CHECKING:
    from raggin_lsp.server.server import RagginServer

log = logging.getLogger(__name__)

CHANGE_DELAY = 1.0  # seconds of quiet typing before a changed file is embedded again


def schedule(server: "RagginServer", uri: str, delay: float = 0.0) -> None:
    """Embed ``uri``'s retrieval context after ``delay`` (the newest change wins), if the
    model is loaded: before that, the first question embeds it itself."""
    assistant = server.loader.ready_assistant()
    if assistant is None or not assistant.loaded:
        return
    clear(server, uri)

    async def later() -> None:
        await asyncio.sleep(delay)
        try:
            context = file_context(server, uri)
            await asyncio.to_thread(assistant.prepare_context, context)
        except RagginError as error:  # the question will say so, if one comes
            log.info("Could not embed %s ahead of a question: %s", uri, error)

    server.pending_contexts[uri] = server.jobs.spawn(later(), name=f"embed context {uri}")


def schedule_open(server: "RagginServer") -> None:
    """Every open file (the model just loaded)."""
    for uri in list(server.workspace.text_documents):
        schedule(server, uri)


def clear(server: "RagginServer", uri: str) -> None:
    pending = server.pending_contexts.pop(uri, None)
    if pending is not None:
        pending.cancel()

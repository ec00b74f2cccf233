"""How an index job's progress reads for a person, whatever carries it.

The pipeline reports :class:`~raggin_lsp.assistant.IndexStage` steps (fetch, parse,
the lexical pass, embed, each with its own count); the language server's ``$/progress`` and the MCP
server's progress notifications both show them as one percentage over the whole job and
a message with the time left.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the pipeline takes seconds to import; this module must not
    from raggin_lsp.assistant import IndexStage

# Where each index stage sits on the percentage bar.
_STAGE_SPAN = {
    "fetch": (0, 10),
    "parse": (10, 15),
    "lexical": (15, 20),
    "embed": (20, 99),
    "done": (100, 100),
}


def stage_percentage(stage: "IndexStage") -> int:
    """The whole job's percentage: fetch 0-10, parse 10-15, the lexical pass 15-20 (the
    version is searchable after it), dense vectors 20-99."""
    low, high = _STAGE_SPAN.get(stage.stage, (0, 99))
    if stage.total:
        return int(low + (high - low) * min(1.0, stage.done / stage.total))
    return low


def stage_message(stage: "IndexStage") -> str:
    """The stage's message, with the estimated time left once it is a second or more."""
    message = stage.message
    if stage.eta_seconds is not None and stage.eta_seconds >= 1:
        minutes, seconds = divmod(int(stage.eta_seconds), 60)
        message += (
            f" (about {minutes} min {seconds:02d} s left)"
            if minutes
            else f" (about {seconds} s left)"
        )
    return message

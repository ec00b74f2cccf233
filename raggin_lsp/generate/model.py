"""What goes into an answer and what comes out of it."""

from dataclasses import dataclass, field
from typing import Any

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_MODEL = "qwen2.5-coder:7b"
# A model already in memory answers within a second or two and a 7B model loads from an
# SSD in a few seconds; 30 s without a word means Ollama is stuck or far too slow here.
FIRST_TOKEN_TIMEOUT_S = 30.0


def _default_options() -> dict[str, Any]:
    # A low temperature keeps the model close to the sources; 8192 tokens of context
    # leave room for five sections, an attached file and a few turns of history
    # (Ollama's own default of 2048 or 4096 would silently cut the sources off).
    return {"temperature": 0.2, "num_ctx": 8192}


@dataclass(frozen=True)
class Turn:
    """One earlier question and the answer it got, replayed as chat history.

    Pass the model's own words (:attr:`Answer.generated`) as ``answer``, not the rendered
    :attr:`Answer.text`: its footer would only take room in the prompt.
    """

    question: str
    answer: str


@dataclass(frozen=True)
class ContextItem:
    """Something from the user's project attached to a question: a selection or a file."""

    label: str  # what the user would call it, e.g. "app/page.tsx" or "selection in app/page.tsx"
    text: str
    language: str | None = None  # fence info string, e.g. "tsx"


@dataclass(frozen=True)
class Citation:
    """A docs section the answer points to with ``[n]``."""

    n: int
    url: str
    title: str  # display label: "Page title — Heading > Subheading"
    version: str


@dataclass(frozen=True)
class GenerationSettings:
    """How to reach Ollama and how much of the prompt each part may take.

    ``context_tokens`` caps the attached files and selection (estimated tokens, see
    :func:`raggin_lsp.generate.budget.estimate_tokens`); when ``options`` carries a
    ``num_ctx`` the cap shrinks further so the sources, history and answer still fit.
    ``first_token_timeout`` is how many seconds Ollama may take before the first fragment
    of its answer; past it the stream is closed and the docs are quoted instead.
    """

    host: str = DEFAULT_HOST
    model: str = DEFAULT_MODEL
    options: dict[str, Any] = field(default_factory=_default_options)
    history_turns: int = 3
    context_tokens: int = 2000
    first_token_timeout: float = FIRST_TOKEN_TIMEOUT_S


@dataclass(frozen=True)
class Answer:
    """A finished answer.

    ``text`` is the Markdown to show: the generated text, the docs version it is grounded
    in and the list of sources. ``generated`` is exactly the concatenation of the chunks
    passed to ``on_chunk``: the model's words, and when something went wrong the
    ``notice`` as a Markdown note followed by the quoted docs.
    """

    text: str
    generated: str
    citations: list[Citation]
    model: str | None  # the Ollama model that wrote it; None when no model was used
    version: str
    used_llm: bool
    notice: str | None = None  # why the answer is extractive or incomplete, and how to fix it
    timings: dict[str, float] = field(default_factory=dict)

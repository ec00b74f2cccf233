"""Chat messages for Ollama: pure functions from question, sources and context.

Layout (tests pin it):

1. ``system``: the rules — answer only from the numbered sources, cite them as
   ``[n]``, name the Next.js version, say so when the sources lack the answer.
2. The last ``history_turns`` turns as ``user`` / ``assistant`` pairs.
3. One ``user`` message: the sources ``[1]..[k]`` (heading path, URL, text with its
   code), then the attached files or selection within the token budget, and the
   question as the final part (after a ``Question:`` line).
"""

import re
from collections.abc import Sequence
from typing import Any

from raggin_lsp.generate.budget import estimate_tokens, trim_to_tokens
from raggin_lsp.generate.model import ContextItem, GenerationSettings, Turn
from raggin_lsp.retrieve.model import SearchResult

# Below this many tokens an attached file is not worth sending: a user who attached
# something expects the model to see at least its start.
MIN_CONTEXT_TOKENS = 256
# Room kept for the answer when the settings do not say (num_predict).
ANSWER_RESERVE_TOKENS = 1024

SYSTEM_PROMPT = """\
You are RAGGIN, an assistant for developers using Next.js {version}.
Answer the user's question using only the numbered sources, which are sections of the \
official Next.js {version} documentation.

Rules:
- Ground every statement in the sources and cite them inline as [n] (for example [1] \
or [2][3]) right after the claim they support. Never cite a number that is not in the \
list of sources.
- The documentation is for Next.js {version}. Do not describe APIs or behaviour of other \
versions unless the sources do.
- If the sources do not contain the answer, say that the Next.js {version} docs provided \
do not cover it instead of guessing.
- Code attached from the user's project is context for the question, not documentation: \
never cite it as a source.
- Be concise. Use Markdown, with fenced code blocks for code."""

_BACKTICK_RUN = re.compile(r"`+")


def system_prompt(version: str) -> str:
    return SYSTEM_PROMPT.format(version=version)


def fenced(code: str, language: str | None = None) -> str:
    """A fence longer than any backtick run inside ``code``, so it cannot break out."""
    longest = max((len(run) for run in _BACKTICK_RUN.findall(code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language or ''}\n{code.rstrip()}\n{fence}"


def format_source(n: int, result: SearchResult) -> str:
    """``[n] Title > Heading``, its URL, then its text with every code block in it."""
    body = result.text.strip()
    # Section text normally carries its code as fences already; add any that it lacks.
    missing = [snippet for snippet in result.code if snippet.code.strip() not in body]
    for snippet in missing:
        header = f"{snippet.filename}:\n" if snippet.filename else ""
        body += f"\n\n{header}{fenced(snippet.code, snippet.language)}"
    heading = result.heading or result.title
    return f"[{n}] {heading}\nURL: {result.url}\n\n{body}"


def format_sources(results: Sequence[SearchResult], version: str) -> str:
    blocks = [format_source(n, result) for n, result in enumerate(results, start=1)]
    return f"Sources from the Next.js {version} docs:\n\n" + "\n\n".join(blocks)


def format_context(items: Sequence[ContextItem], max_tokens: int) -> str:
    """The attached files or selection, sharing ``max_tokens`` in the order given.

    Each item keeps its start; a trimmed or left-out item says so, so the model does
    not take a partial file for the whole of it.
    """
    if not items:
        return ""
    parts = ["Attached from the user's project (context, not a source):"]
    remaining = max_tokens
    for item in items:
        title = f"--- {item.label} ---"
        if remaining <= 0:
            parts.append(f"{title}\n[left out: over the context budget of ~{max_tokens} tokens]")
            continue
        text, trimmed = trim_to_tokens(item.text, remaining)
        remaining -= estimate_tokens(text)
        block = f"{title}\n{fenced(text, item.language)}"
        if trimmed:
            block += (
                f"\n[trimmed: only the first ~{estimate_tokens(text)} of"
                f" ~{estimate_tokens(item.text)} tokens are shown]"
            )
        parts.append(block)
    return "\n\n".join(parts)


def recent_history(history: Sequence[Turn], turns: int) -> list[Turn]:
    return list(history[-turns:]) if turns > 0 else []


def context_budget(settings: GenerationSettings, used_tokens: int) -> int:
    """Tokens the attached context may take: ``context_tokens``, less if ``num_ctx``
    would otherwise overflow (keeping room for the answer), but never below
    :data:`MIN_CONTEXT_TOKENS`."""
    budget = settings.context_tokens
    num_ctx = settings.options.get("num_ctx")
    if isinstance(num_ctx, int) and num_ctx > 0:
        num_predict = settings.options.get("num_predict")
        reserve = (
            num_predict
            if isinstance(num_predict, int) and num_predict > 0
            else ANSWER_RESERVE_TOKENS
        )
        budget = min(budget, num_ctx - used_tokens - reserve)
    return max(budget, min(MIN_CONTEXT_TOKENS, settings.context_tokens))


def build_messages(
    question: str,
    results: Sequence[SearchResult],
    *,
    version: str,
    settings: GenerationSettings,
    context: Sequence[ContextItem] = (),
    history: Sequence[Turn] = (),
) -> list[dict[str, Any]]:
    """The chat messages for one question (see the module docstring for the layout)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt(version)}]
    for turn in recent_history(history, settings.history_turns):
        messages.append({"role": "user", "content": turn.question})
        messages.append({"role": "assistant", "content": turn.answer})

    sources = format_sources(results, version)
    closing = f"Question: {question.strip()}"
    used = sum(estimate_tokens(m["content"]) for m in messages)
    used += estimate_tokens(sources) + estimate_tokens(closing)
    attached = format_context(context, context_budget(settings, used))
    user = "\n\n".join(part for part in (sources, attached, closing) if part)
    messages.append({"role": "user", "content": user})
    return messages

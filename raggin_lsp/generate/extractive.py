"""An answer without a language model: the best sections, quoted briefly, with links.

Used when Ollama cannot answer, and when the search found nothing. It numbers the
sections like the LLM prompt does, so its ``[n]`` markers cite the same sources. A
"Version History" source (what changed, release by release) is shown whole, row by row,
and does not count against the sections quoted.
"""

import re
from collections.abc import Sequence

from raggin_lsp.generate.citations import markdown_link, source_label
from raggin_lsp.generate.prompt import fenced
from raggin_lsp.retrieve.model import SearchResult

MAX_SECTIONS = 3
HISTORY_HEADING = "Version History"
HISTORY_LINES = 30
QUOTE_CHARS = 320
CODE_LINES = 12

_FENCE_BLOCK = re.compile(r"^(`{3,}|~{3,}).*?(?:^\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
_WHITESPACE = re.compile(r"\s+")


def _short(text: str, limit: int) -> str:
    flat = _WHITESPACE.sub(" ", text).strip()
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + " …"


def _quote(result: SearchResult) -> str:
    prose = _FENCE_BLOCK.sub("\n", result.text)
    paragraphs = [p for p in re.split(r"\n\s*\n", prose) if p.strip()]
    quoted = _short(" ".join(paragraphs), QUOTE_CHARS)
    return f"> {quoted}" if quoted else ""


def _code_excerpt(result: SearchResult) -> str:
    if not result.code:
        return ""
    snippet = result.code[0]
    lines = snippet.code.rstrip().splitlines()
    code = "\n".join(lines[:CODE_LINES]) + ("\n…" if len(lines) > CODE_LINES else "")
    header = f"`{snippet.filename}`\n\n" if snippet.filename else ""
    return header + fenced(code, snippet.language)


def is_history(result: SearchResult) -> bool:
    """A page's "Version History" section: which release changed its API, and how."""
    return result.heading_path[-1:] == (HISTORY_HEADING,)


def _history_rows(result: SearchResult) -> str:
    rows = [line for line in result.text.splitlines() if line.strip()]
    shown = rows[:HISTORY_LINES] + (["…"] if len(rows) > HISTORY_LINES else [])
    return "\n".join(shown)


def no_results_answer(question: str, version: str) -> str:
    return (
        f"No matching sections were found in the Next.js {version} docs for "
        f"“{_short(question, 80)}”. Try other words (for example the name of the API "
        "or file convention), or check that the project uses the Next.js version you expect."
    )


def extractive_answer(question: str, results: Sequence[SearchResult], version: str) -> str:
    """Quote the best ``MAX_SECTIONS`` sections (code for the best one) with their links,
    after any Version History sources, shown whole."""
    if not results:
        return no_results_answer(question, version)
    blocks = [
        f"The most relevant sections of the Next.js {version} docs for “{_short(question, 80)}”:"
    ]
    quoted = 0
    for n, result in enumerate(results, start=1):
        parts = [f"**[{n}] {markdown_link(source_label(result), result.url)}**"]
        if is_history(result):
            parts.append(_history_rows(result))
        elif quoted == MAX_SECTIONS:
            continue
        else:
            quoted += 1
            quote = _quote(result)
            if quote:
                parts.append(quote)
            if (quoted == 1 or not quote) and (code := _code_excerpt(result)):
                parts.append(code)
        blocks.append("\n\n".join(parts))
    return "\n\n".join(blocks) + "\n"

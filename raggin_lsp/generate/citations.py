"""Which sources an answer cites, and the footer that lists them.

Citations are the ``[n]`` markers (also ``[1, 2]``) in the generated text, outside code
blocks and inline code, where ``n`` numbers one of the given sources. When the model
cites nothing, every given source is listed: the answer was still written from them,
and the user needs the links to check it.
"""

import re
from collections.abc import Sequence

from raggin_lsp.generate.model import Citation
from raggin_lsp.retrieve.model import SearchResult

_FENCED_CODE = re.compile(r"^(`{3,}|~{3,}).*?(?:^\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def _without_code(text: str) -> str:
    return _INLINE_CODE.sub(" ", _FENCED_CODE.sub(" ", text))


def cited_numbers(text: str, count: int) -> list[int]:
    """Source numbers ``1..count`` cited in ``text``, ascending, each once."""
    found: set[int] = set()
    for match in _MARKER.finditer(_without_code(text)):
        for number in match.group(1).split(","):
            n = int(number)
            if 1 <= n <= count:
                found.add(n)
    return sorted(found)


def source_label(result: SearchResult) -> str:
    """``Title — Heading > Subheading``, or the title alone for a page's introduction."""
    path = list(result.heading_path)
    if path and path[0] == result.title:
        path = path[1:]
    title = result.title or (path.pop(0) if path else result.url_path)
    return f"{title} — {' > '.join(path)}" if path else title


def citation_for(n: int, result: SearchResult) -> Citation:
    return Citation(n=n, url=result.url, title=source_label(result), version=result.version)


def citations_in(text: str, results: Sequence[SearchResult]) -> list[Citation]:
    """The sources cited in ``text``; all of them when none is cited."""
    numbers = cited_numbers(text, len(results)) or list(range(1, len(results) + 1))
    return [citation_for(n, results[n - 1]) for n in numbers]


def _link_text(label: str) -> str:
    return label.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _link_target(url: str) -> str:
    return f"<{url}>" if any(c in url for c in " ()<>") else url


def markdown_link(label: str, url: str) -> str:
    return f"[{_link_text(label)}]({_link_target(url)})"


def grounding_line(version: str) -> str:
    return f"_Grounded in the Next.js {version} docs._"


def note(notice: str) -> str:
    """A notice as the Markdown note shown in answers."""
    return f"> **Note:** {notice}"


def render_answer(
    generated: str, citations: Sequence[Citation], version: str, notice: str | None = None
) -> str:
    """The Markdown shown to the user: text, notice, docs version, then the sources."""
    parts = [generated.rstrip()] if generated.strip() else []
    if notice:
        parts.append(note(notice))
    parts.append(grounding_line(version))
    if citations:
        lines = [f"- [{c.n}] {markdown_link(c.title, c.url)}" for c in citations]
        parts.append("**Sources**\n\n" + "\n".join(lines))
    return "\n\n".join(parts) + "\n"

"""mistune 3 AST -> readable Markdown blocks and structured code snippets.

The output is for people and embedding models, not for a round trip: text is not
re-escaped, HTML tags left over after MDX cleaning are reduced to their text,
images become their alt text, and a code fence keeps only its language and file
name (``switcher`` or ``highlight={1,3}`` would be noise to a reader).
"""

import re
from collections.abc import Iterator
from typing import Any, cast

import mistune
from mistune.core import BlockState
from mistune.renderers.markdown import MarkdownRenderer

from raggin_lsp.corpus.model import CodeSnippet

Token = dict[str, Any]

_INFO_PART = re.compile(
    r"""([A-Za-z_][\w-]*)=(?:"([^"]*)"|'([^']*)'|\{([^}]*)\}|(\S+))|\{([^}]*)\}|(\S+)"""
)
_HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_BREAK_TAG = re.compile(r"<br\s*/?>", re.IGNORECASE)


def create_parser() -> mistune.Markdown:
    """A Markdown parser configured like MDX: no indented code blocks."""
    markdown = mistune.create_markdown(renderer=None, plugins=["table", "strikethrough"])
    # MDX has no indented code; without this, text nested in indented JSX layout
    # (``<div>`` around a ``<span>``) would turn into code.
    markdown.block.rules = [rule for rule in markdown.block.rules if rule != "indent_code"]
    return markdown


def parse_info(info: str, code: str) -> CodeSnippet:
    """``tsx filename="app/page.tsx" switcher highlight={1,3}`` -> a snippet."""
    language = ""
    filename: str | None = None
    switcher = False
    highlight: str | None = None
    for match in _INFO_PART.finditer(info.strip()):
        key, quoted, single, braced, bare, lone_braces, word = match.groups()
        if key is not None:
            value = next(v for v in (quoted, single, braced, bare) if v is not None)
            if key == "filename":
                filename = value
            elif key == "highlight":
                highlight = value
        elif lone_braces is not None:
            highlight = lone_braces
        elif word == "switcher":
            switcher = True
        elif not language and word is not None and not match.start():
            language = word
    return CodeSnippet(
        language=language, code=code, filename=filename, switcher=switcher, highlight=highlight
    )


def plain_text(tokens: list[Token]) -> str:
    """The visible text of inline tokens (what a heading's slug is made from)."""
    parts: list[str] = []
    for token in tokens:
        kind = token["type"]
        if kind in ("text", "codespan"):
            parts.append(cast(str, token["raw"]))
        elif kind in ("softbreak", "linebreak"):
            parts.append(" ")
        elif kind == "inline_html":
            parts.append(_BREAK_TAG.sub(" ", _strip_tags_keep_breaks(cast(str, token["raw"]))))
        elif "children" in token:
            parts.append(plain_text(cast(list[Token], token["children"])))
    return "".join(parts)


def iter_code_blocks(token: Token) -> Iterator[Token]:
    if token["type"] == "block_code":
        yield token
    for child in token.get("children", ()) or ():
        if isinstance(child, dict):
            yield from iter_code_blocks(child)


def snippets_of(token: Token) -> tuple[CodeSnippet, ...]:
    return tuple(
        parse_info(cast(str, block.get("attrs", {}).get("info", "") or ""), cast(str, block["raw"]))
        for block in iter_code_blocks(token)
    )


def _strip_tags_keep_breaks(raw: str) -> str:
    return _HTML_TAG.sub(lambda m: " " if _BREAK_TAG.fullmatch(m.group(0)) else "", raw)


class ReadableMarkdown(MarkdownRenderer):
    """Renders one top-level block token at a time as readable Markdown."""

    def render_block(self, token: Token) -> str:
        state = BlockState()
        return self.render_token(token, state).strip("\n")

    def text(self, token: Token, state: BlockState) -> str:
        return cast(str, token["raw"])

    def inline_html(self, token: Token, state: BlockState) -> str:
        return _strip_tags_keep_breaks(cast(str, token["raw"]))

    def block_html(self, token: Token, state: BlockState) -> str:
        text = _strip_tags_keep_breaks(cast(str, token["raw"])).strip()
        return text + "\n\n" if text else ""

    def image(self, token: Token, state: BlockState) -> str:
        return self.render_children(token, state)

    def block_quote(self, token: Token, state: BlockState) -> str:
        quoted = super().block_quote(token, state)
        return "\n".join(
            line.rstrip() if line.strip() == ">" else line for line in quoted.split("\n")
        )

    def thematic_break(self, token: Token, state: BlockState) -> str:
        return "---\n\n"

    def block_code(self, token: Token, state: BlockState) -> str:
        code = cast(str, token["raw"])
        if code and not code.endswith("\n"):
            code += "\n"
        snippet = parse_info(cast(str, token.get("attrs", {}).get("info", "") or ""), code)
        info = snippet.language
        if snippet.filename:
            info += f' filename="{snippet.filename}"'
        longest = max((len(run) for run in re.findall(r"^[ \t]*(`{3,})", code, re.M)), default=2)
        fence = "`" * max(3, longest + 1)
        return f"{fence}{info}\n{code}{fence}\n\n"

    def table(self, token: Token, state: BlockState) -> str:
        rows: list[list[str]] = []
        aligns: list[str | None] = []
        for part in cast(list[Token], token["children"]):
            if part["type"] == "table_head":
                cells = cast(list[Token], part["children"])
                aligns = [cast(str | None, cell["attrs"].get("align")) for cell in cells]
                rows.append([self._cell(cell, state) for cell in cells])
            else:
                for row in cast(list[Token], part["children"]):
                    rows.append(
                        [self._cell(cell, state) for cell in cast(list[Token], row["children"])]
                    )
        if not rows:
            return ""
        separator = [_align_marker(align) for align in aligns] or ["---"] * len(rows[0])
        lines = [
            _table_line(rows[0]),
            _table_line(separator),
            *(_table_line(row) for row in rows[1:]),
        ]
        return "\n".join(lines) + "\n\n"

    def _cell(self, cell: Token, state: BlockState) -> str:
        return " ".join(self.render_children(cell, state).replace("|", "\\|").split())


def _align_marker(align: str | None) -> str:
    return {"left": ":--", "right": "--:", "center": ":-:"}.get(align or "", "---")


def _table_line(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"

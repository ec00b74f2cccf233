"""Code actions: explain a selection, find the docs for a symbol, ask a ``// @raggin``
comment's question, and index the docs version when it is missing.

They only build commands (run with ``workspace/executeCommand``), so they are instant.
"""

import re
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from raggin_lsp.code import lookup
from raggin_lsp.server import diagnostics, targets
from raggin_lsp.server.ask import selection_text
from raggin_lsp.server.params import Position, Span

if TYPE_CHECKING:
    from raggin_lsp.corpus.apis import ApiCatalog
    from raggin_lsp.server.server import RagginServer

KIND = types.CodeActionKind.QuickFix
ASK, SEARCH, INDEX, SELECT_VERSION = (
    "raggin.ask",
    "raggin.search",
    "raggin.index",
    "raggin.selectVersion",
)
MAX_SYMBOL_CHARS = 60
EXPLAIN_QUESTION = (
    "Explain what this code does and how it uses Next.js, according to the docs. "
    "Point out anything the docs of this version recommend doing differently."
)
# ``// @raggin how do I ...`` and the same in /* */, {/* */} (JSX/MDX), # and <!-- -->.
_ASK_COMMENT = re.compile(
    r"^\s*(?://+|/\*+|\{\s*/\*+|\*|#|<!--)\s*@raggin\b[:\s]*(?P<question>.*?)"
    r"\s*(?:\*/\s*\}?|-->)?\s*$"
)


def comment_question(line: str) -> str | None:
    match = _ASK_COMMENT.match(line)
    if match is None:
        return None
    question = match.group("question").strip()
    return question or None


def _title_version(version: str | None) -> str:
    return f"Next.js {version}" if version else "Next.js"


def _symbol(
    text: str, span: Span, path: str, router: str | None, catalog: "ApiCatalog | None"
) -> tuple[str, str] | None:
    """(label, query): the Next.js API at the cursor (when the version's catalog is at
    hand), else a short one-line selection."""
    if catalog is not None:
        found = lookup.api_at(catalog, text, span.start.line, span.start.character, path, router)
        if found is not None:
            reference, api = found
            query = " ".join(part for part in (api.name, api.description) if part)
            return reference.label, query
    if span.empty or span.start.line != span.end.line:
        return None
    selected = selection_text(text, span).strip()
    if 0 < len(selected) <= MAX_SYMBOL_CHARS:
        return selected, selected
    return None


def _command(title: str, command: str, argument: Any) -> types.Command:
    return types.Command(title=title, command=command, arguments=[argument])


def commands_for(
    server: "RagginServer",
    uri: str,
    text: str,
    path: str,
    span: Span,
    catalog: "ApiCatalog | None" = None,
) -> list[types.Command]:
    target = targets.resolve(server, uri, text=text)
    version = target.version
    label = _title_version(version)
    document = {"uri": uri}
    where = {
        "start": {"line": span.start.line, "character": span.start.character},
        "end": {"line": span.end.line, "character": span.end.character},
    }
    pinned = {"version": version} if version else {}
    commands: list[types.Command] = []

    lines = text.splitlines()
    for number in range(span.start.line, min(span.end.line, len(lines) - 1) + 1):
        question = comment_question(lines[number])
        if question is not None:
            shown = question if len(question) <= 50 else question[:49] + "…"
            commands.append(
                _command(
                    f"Ask RAGGIN: {shown}",
                    ASK,
                    {"question": question, "textDocument": document, **pinned},
                )
            )
            break

    # Nothing to explain in a range of blanks, or one beyond the end of the document.
    if selection_text(text, span).strip():
        commands.append(
            _command(
                f"Explain with {label} docs",
                ASK,
                {"question": EXPLAIN_QUESTION, "textDocument": document, "range": where, **pinned},
            )
        )

    symbol = _symbol(text, span, path, target.router, catalog)
    if symbol is not None:
        name, query = symbol
        commands.append(
            _command(
                f"Find {label} docs for {name}",
                SEARCH,
                {"query": query, "textDocument": document, **pinned},
            )
        )

    loaded = server.loader.state == "ready"
    if commands and version and loaded and not server.upgrades.searchable(version):
        commands.append(_command(f"Index {label} docs", INDEX, {"version": version}))
    return commands


async def code_actions(
    server: "RagginServer", params: types.CodeActionParams
) -> list[types.CodeAction | types.Command] | None:
    only = params.context.only
    if only and not any(KIND.value.startswith(str(getattr(k, "value", k))) for k in only):
        return None
    document = server.workspace.get_text_document(params.text_document.uri)
    span = Span(
        Position(params.range.start.line, params.range.start.character),
        Position(params.range.end.line, params.range.end.character),
    )
    catalog = await _catalog(server, document.uri, document.source)
    commands = commands_for(server, document.uri, document.source, document.path, span, catalog)
    if not _literal_support(server):  # edits need code action literals
        return list(commands) or None
    actions: list[types.CodeAction | types.Command] = list(
        await diagnostics.quick_fixes(
            server, document.uri, params.range, list(params.context.diagnostics)
        )
    )
    actions += [types.CodeAction(title=c.title, kind=KIND, command=c) for c in commands]
    return actions or None


async def _catalog(server: "RagginServer", uri: str, text: str) -> "ApiCatalog | None":
    """The catalog of the document's version when the index is loaded and has it (a code
    action never waits for loading or indexing)."""
    target = targets.resolve(server, uri, text=text)
    if server.loader.ready_assistant() is None or target.version is None:
        return None
    if not server.upgrades.searchable(target.version):  # lexical-only versions count
        return None
    root = target.project.root if target.project is not None else None
    return await server.catalogs.get(target.version, root)


def _literal_support(server: "RagginServer") -> bool:
    text_document = server.client_capabilities.text_document
    code_action = text_document.code_action if text_document else None
    return bool(code_action and code_action.code_action_literal_support)

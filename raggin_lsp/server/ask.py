"""``raggin/ask`` (and the ``raggin.ask`` command): a grounded answer, streamed.

Every generated chunk goes out as a ``$/progress`` report on the request's
``workDoneToken`` (or a token the server creates), coalesced to at most one report per
~50 ms; the reports' messages joined are exactly ``Answer.generated``. With a
``partialResultToken`` the growing answer is sent there as ``{"answer": text so far}``.
Cancelling the request (``$/cancelRequest`` or the progress's cancel button) cancels
the task, which closes the Ollama stream.
"""

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from raggin_lsp.errors import RagginError
from raggin_lsp.server import targets
from raggin_lsp.server.params import AskParams, InlineFile, Span
from raggin_lsp.server.progress import Coalescer, WorkDone

if TYPE_CHECKING:
    from raggin_lsp.server.server import RagginServer

MAX_FILE_CHARS = 12_000
_LANGUAGES = {
    ".ts": "ts", ".tsx": "tsx", ".js": "js", ".jsx": "jsx", ".mjs": "js", ".cjs": "js",
    ".mdx": "mdx", ".md": "md", ".json": "json", ".css": "css", ".yaml": "yaml",
}  # fmt: skip


def language_of(name: str) -> str | None:
    return _LANGUAGES.get(Path(name).suffix.lower())


def selection_text(text: str, span: Span) -> str:
    lines = text.splitlines(keepends=True)
    if span.start.line >= len(lines):
        return ""
    if span.start.line == span.end.line:
        return lines[span.start.line][span.start.character : span.end.character]
    parts = [lines[span.start.line][span.start.character :]]
    parts += lines[span.start.line + 1 : span.end.line]
    if span.end.line < len(lines):
        parts.append(lines[span.end.line][: span.end.character])
    return "".join(parts)


def _relative(server: "RagginServer", path: Path) -> str:
    root = server.workspace_root()
    if root is not None:
        try:
            return str(path.relative_to(root))
        except ValueError:
            pass
    return path.name


def _read_uri(server: "RagginServer", uri: str) -> tuple[str, str]:
    """(label, text) of a document: the editor's copy when open, else the file."""
    document = server.workspace.get_text_document(uri)
    path = Path(document.path)
    try:
        text = document.source
    except OSError as error:
        raise RagginError(f"Cannot read {uri}: {error.strerror}") from error
    return _relative(server, path), text


def file_context(server: "RagginServer", uri: str) -> list[Any]:
    """The context of a question about the file ``uri`` as a whole (no selection)."""
    from raggin_lsp.generate.model import ContextItem

    label, text = _read_uri(server, uri)
    return [ContextItem(label, text[:MAX_FILE_CHARS], language_of(label))]


def build_context(server: "RagginServer", request: AskParams) -> list[Any]:
    """The selection, the current file and the attached files, as ContextItems."""
    from raggin_lsp.generate.model import ContextItem

    items: list[Any] = []
    span = request.span
    if request.uri is not None and span is not None and not span.empty:
        label, text = _read_uri(server, request.uri)
        first, last = span.start.line + 1, span.end.line + 1
        where = f"lines {first}-{last}" if last > first else f"line {first}"
        items.append(
            ContextItem(
                label=f"selection in {label} ({where})",
                text=selection_text(text, span),
                language=language_of(label),
            )
        )
    elif request.uri is not None:
        items += file_context(server, request.uri)
    for item in request.files:
        if isinstance(item, InlineFile):
            items.append(ContextItem(item.name, item.text[:MAX_FILE_CHARS], language_of(item.name)))
        else:
            label, text = _read_uri(server, item)
            items.append(ContextItem(label, text[:MAX_FILE_CHARS], language_of(label)))
    return items


def answer_json(answer: Any) -> dict[str, Any]:
    result: dict[str, Any] = {
        "answer": answer.text,
        "generated": answer.generated,
        "citations": [
            {"n": c.n, "url": c.url, "title": c.title, "version": c.version}
            for c in answer.citations
        ],
        "model": answer.model,
        "version": answer.version,
        "usedLlm": answer.used_llm,
        "timings": dict(answer.timings),
    }
    if answer.notice:
        result["notice"] = answer.notice
    return result


async def ask(server: "RagginServer", request: AskParams) -> dict[str, Any]:
    from raggin_lsp.generate.model import Turn

    text = _read_uri(server, request.uri)[1] if request.uri is not None else None
    target = targets.resolve(
        server, request.uri, version=request.version, router=request.router, text=text
    )
    version = targets.require_version(target)
    answerer = await server.upgrades.answering(version)  # light until bge-m3's is complete
    assistant = answerer.assistant
    context = build_context(server, request)
    turns = server.settings.history_turns
    history = [Turn(t.question, t.answer) for t in request.history][-turns:] if turns else []
    options = {**server.settings.generation.options(), **(request.options or {})}
    model = request.model or server.settings.model

    async with WorkDone(
        server,
        f"Asking the Next.js {version} docs",
        token=request.work_done_token,
        cancellable=True,
    ) as work:
        partial = _PartialAnswer(server, request.partial_result_token)

        def emit(chunk: str) -> None:
            work.report(message=chunk)
            partial.add(chunk)

        coalescer = Coalescer(emit)
        try:
            answer = await assistant.ask(
                request.question,
                version,
                router=target.router,
                context=context,
                history=history,
                model=model,
                options=options or None,
                on_chunk=coalescer.add,
            )
        finally:
            coalescer.flush()  # even a cancelled answer reports what it streamed
        stage = await asyncio.to_thread(assistant.index_stage, version)
        searched = f" ({answerer.profile}{'' if stage == 'hybrid' else ', ' + stage})"
        work.end_message = answer.notice or f"Answered from the Next.js {version} docs{searched}"
    return {**answer_json(answer), "indexStage": stage, "profile": answerer.profile}


class _PartialAnswer:
    """Sends the answer so far on the client's ``partialResultToken``, if it gave one."""

    def __init__(self, server: "RagginServer", token: int | str | None) -> None:
        self._server = server
        self._token = token
        self._text = ""

    def add(self, chunk: str) -> None:
        if self._token is None:
            return
        self._text += chunk
        self._server.protocol.notify(
            types.PROGRESS, types.ProgressParams(token=self._token, value={"answer": self._text})
        )

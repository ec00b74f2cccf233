"""Answers produced by commands are saved as Markdown in the cache and shown to the user."""

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import from_fs_path

from raggin_lsp import paths

if TYPE_CHECKING:
    from raggin_lsp.server.server import RagginServer

MESSAGE_CHARS = 1500  # what a window/showMessage can reasonably hold


def answers_dir() -> Path:
    return paths.cache_dir() / "answers"


def slug(text: str, limit: int = 48) -> str:
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return words[:limit].rstrip("-") or "answer"


def write_markdown(title: str, body: str, folder: Path | None = None) -> Path:
    folder = folder or answers_dir()
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"{stamp}-{slug(title)}.md"
    counter = 1
    while path.exists():
        counter += 1
        path = folder / f"{stamp}-{slug(title)}-{counter}.md"
    path.write_text(f"# {title}\n\n{body.rstrip()}\n", encoding="utf-8")
    return path


def answer_markdown(result: dict[str, Any]) -> str:
    """The answer as shown in the file (``Answer.text`` already lists its sources)."""
    return str(result["answer"])


def search_markdown(query: str, version: str | None, results: list[dict[str, Any]]) -> str:
    if not results:
        return f"No section of the Next.js {version} docs matches this search."
    stage = str(results[0].get("indexStage", "hybrid"))
    searched = "" if stage == "hybrid" else f" ({stage})"
    lines = [f"*Next.js {version} docs{searched}*", ""]
    for number, result in enumerate(results, 1):
        lines += [f"## {number}. [{result['heading'] or result['title']}]({result['url']})", ""]
        lines += [str(result["text"]).strip(), ""]
    return "\n".join(lines)


async def show(server: "RagginServer", path: Path, summary: str) -> bool:
    """Open the file in the editor when the client can; else show the text as a message."""
    if server.supports_show_document():
        uri = from_fs_path(str(path)) or path.as_uri()
        try:
            result = await server.window_show_document_async(
                types.ShowDocumentParams(uri=uri, take_focus=True)
            )
        except Exception:  # a client that fails here still gets the message below
            result = None
        if result is not None and result.success:
            return True
    text = summary if len(summary) <= MESSAGE_CHARS else summary[:MESSAGE_CHARS] + " …"
    server.window_show_message(
        types.ShowMessageParams(type=types.MessageType.Info, message=f"{text}\n\n(Saved in {path})")
    )
    return False

"""Hover: the docs section for the Next.js API under the cursor, for the project's version.

No LLM here: a hover is one hybrid search for the term's curated query, preferring a
result on the term's own docs page. Unknown words answer None at once.
"""

import asyncio
import re
from typing import TYPE_CHECKING

from lsprotocol import types

from raggin_lsp.corpus.urls import major_of, site_url
from raggin_lsp.server import targets
from raggin_lsp.server.loading import not_indexed_message
from raggin_lsp.server.terms import SOURCE_SUFFIXES, Term, as_router, find_term, is_config_file

if TYPE_CHECKING:
    from raggin_lsp.retrieve.model import SearchResult
    from raggin_lsp.server.server import RagginServer

HOVER_RESULTS = 8
MAX_SECTION_CHARS = 1800


def wants_hover(path: str) -> bool:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.endswith(SOURCE_SUFFIXES) or is_config_file(name)


def pick_result(results: "list[SearchResult]", term: Term) -> "SearchResult | None":
    """The best result on the term's own page (in the page order given), else the best."""
    for page in term.pages:
        on_page = [result for result in results if result.url_path == page]
        if on_page:
            return max(on_page, key=lambda result: result.score)
    return results[0] if results else None


def shorten(text: str, limit: int = MAX_SECTION_CHARS) -> str:
    """Cut at a paragraph end before ``limit``, closing a code fence left open."""
    if len(text) <= limit:
        return text.strip()
    cut = text.rfind("\n\n", 0, limit)
    if cut < limit // 3:
        cut = limit
    short = text[:cut].rstrip()
    if len(re.findall(r"^\s*(```|~~~)", short, flags=re.M)) % 2:
        short += "\n```"
    return short + "\n\n…"


def page_url(page: str, version: str, latest: str | None) -> str:
    return site_url(page, version, major_of(latest) if latest else None)


def render(term: Term, result: "SearchResult | None", version: str, latest: str | None) -> str:
    router = {"app": " · App Router", "pages": " · Pages Router"}.get(term.router or "", "")
    lines = [f"**Next.js {version} docs**{router}", ""]
    if result is None:
        lines.append(f"No section of the Next.js {version} docs matches `{term.name}`.")
    else:
        heading = result.heading or result.title
        lines += [f"### {heading}", "", shorten(result.text), ""]
    if result is not None and (not term.pages or result.url_path in term.pages):
        link, label = result.url, result.title or term.name
    elif term.page is not None:
        link, label = page_url(term.page, version, latest), term.name
    else:
        assert result is not None
        link, label = result.url, result.title
    lines.append(f"[{label} on nextjs.org]({link})")
    return "\n".join(lines)


def _notice(version: str, indexing: bool) -> str:
    if indexing:
        return (
            f"**Next.js {version} docs** are being indexed (see the progress); "
            "hover again when it is done."
        )
    return f"**Next.js {version} docs**\n\n{not_indexed_message(version)}"


async def hover(server: "RagginServer", params: types.HoverParams) -> types.Hover | None:
    document = server.workspace.get_text_document(params.text_document.uri)
    if not wants_hover(document.path):
        return None
    target = targets.resolve(server, document.uri, text=document.source)
    router = as_router(target.router)
    term = find_term(
        document.source,
        params.position.line,
        params.position.character,
        document.path,
        router=router,
    )
    if term is None:
        return None
    assistant = await server.loader.assistant()
    target = targets.resolve(server, document.uri, text=document.source)  # now with the index
    version = targets.require_version(target)
    if version not in server.loader.indexed:
        if server.settings.auto_index:
            server.loader.start_index(version)
        return _markdown(_notice(version, server.settings.auto_index))
    search_router = term.router or router
    results = await asyncio.to_thread(
        assistant.search, term.query, version, router=search_router, top_k=HOVER_RESULTS
    )
    result = pick_result(results, term)
    return _markdown(render(term, result, version, server.loader.latest))


def _markdown(text: str) -> types.Hover:
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

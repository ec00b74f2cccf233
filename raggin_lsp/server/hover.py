"""Hover: the docs section for the Next.js API under the cursor, for the project's version.

No LLM here. The code at the cursor is read with tree-sitter (``raggin_lsp.code``); the
version's API catalog (derived from its docs) says which reference page documents it;
one hybrid search finds the best section, preferring that page. The link always points
at the catalog's page, which exists in that version. Code that names nothing Next.js
could document answers None before anything is loaded.
"""

import asyncio
import re
from typing import TYPE_CHECKING

from lsprotocol import types

from raggin_lsp.code import lookup
from raggin_lsp.code.syntax import Reference, SourceFile, is_source_file
from raggin_lsp.corpus.apis import Api, Deprecation
from raggin_lsp.corpus.urls import major_of, site_url
from raggin_lsp.server import targets
from raggin_lsp.server.loading import not_indexed_message

if TYPE_CHECKING:
    from raggin_lsp.retrieve.model import SearchResult
    from raggin_lsp.server.server import RagginServer

HOVER_RESULTS = 8
MAX_SECTION_CHARS = 1800


def wants_hover(path: str) -> bool:
    return is_source_file(path)


def pick_result(results: "list[SearchResult]", page: str) -> "SearchResult | None":
    """The best result on the API's own page, else None (the hover then shows the
    page's description: a section of another page would document something else)."""
    on_page = [result for result in results if result.url_path == page]
    return max(on_page, key=lambda result: result.score) if on_page else None


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


def render(
    api: Api,
    reference: Reference,
    result: "SearchResult | None",
    version: str,
    latest: str | None,
    deprecation: Deprecation | None = None,
) -> str:
    router = {"app": " · App Router", "pages": " · Pages Router"}.get(api.router, "")
    lines = [f"**Next.js {version} docs**{router}", ""]
    if deprecation is not None:
        instead = (
            f" Use `{deprecation.replacement.name}` instead." if deprecation.replacement else ""
        )
        lines += [f"> **{deprecation.status.capitalize()}**: {deprecation.evidence}{instead}", ""]
    if result is None:
        lines += [f"### {api.title}", "", api.description or f"`{reference.label}`", ""]
    else:
        lines += [f"### {result.heading or result.title}", "", shorten(result.text), ""]
    link = result.url if result is not None else page_url(api.url_path, version, latest)
    lines.append(f"[{api.title} on nextjs.org]({link})")
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
    line, character = params.position.line, params.position.character
    source = SourceFile(document.source, document.path)
    if lookup.reference_at(source, line, character) is None:
        return None
    await server.loader.opened()  # the catalog needs no embedding model
    target = targets.resolve(server, document.uri, text=document.source)
    version = targets.require_version(target)
    if not server.upgrades.searchable(version):  # a lexical-only version answers already
        if server.settings.auto_index:
            server.upgrades.start_index(version)
        return _markdown(_notice(version, server.settings.auto_index))
    if version not in server.loader.indexed and server.settings.auto_index:
        server.upgrades.start_index(version)  # finish it (light first, then the profile's)
    root = target.project.root if target.project is not None else None
    catalog = await server.catalogs.get(version, root)
    if catalog is None:  # the docs cannot be read (logged once by the cache)
        return None
    found = lookup.api_at(catalog, document.source, line, character, document.path, target.router)
    if found is None:
        return None
    reference, api = found
    deprecation = catalog.deprecation_of(lookup.symbol_of(reference))
    result = None
    answerer = server.upgrades.ready(version)
    if answerer is not None:  # else the page's description, at once
        query = " ".join(part for part in (api.name, api.description) if part)
        results = await asyncio.to_thread(
            answerer.assistant.search, query, version, router=api.router, top_k=HOVER_RESULTS
        )
        result = pick_result(results, api.url_path)
    return _markdown(render(api, reference, result, version, server.loader.latest, deprecation))


def _markdown(text: str) -> types.Hover:
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

"""How nextjs.org turns docs file paths and headings into addresses."""

import re

from raggin_lsp.corpus.model import NEXTJS_SITE

_NUMERIC_PREFIX = re.compile(r"^\d+-")
# A Markdown link target that is a site path: "](/docs/app/...)" or "](/docs/app/...#x)".
_SITE_LINK = re.compile(r"\]\((/docs/[^)\s]*)\)")


def url_path_for(source_path: str, tag: str = "docs") -> str:
    """``01-app/01-getting-started/04-linking-and-navigating.md`` ->
    ``/docs/app/getting-started/linking-and-navigating``; ``index`` maps to its folder.

    Error pages (``errors/*.mdx`` in the repository) live under ``/docs/messages``.
    """
    parts = [part for part in source_path.replace("\\", "/").split("/") if part]
    if parts:
        stem = parts[-1]
        for extension in (".mdx", ".md"):
            if stem.endswith(extension):
                stem = stem[: -len(extension)]
                break
        parts[-1] = stem
        if stem == "index":
            parts.pop()
    clean = [_NUMERIC_PREFIX.sub("", part) for part in parts]
    root = "/docs/messages" if tag == "errors" else "/docs"
    return "/".join([root, *clean]) if clean else root


def major_of(version: str) -> int:
    return int(version.split(".", 1)[0])


def site_url(url_path: str, version: str, latest_major: int | None = None) -> str:
    """The nextjs.org address of a page for the docs of ``version``'s major release.

    nextjs.org serves the newest major at ``/docs/...`` and older majors at
    ``/docs/<major>/...``; with no ``latest_major`` given the unprefixed form is used.
    """
    major = major_of(version)
    if latest_major is not None and major < latest_major and url_path.startswith("/docs/"):
        url_path = f"/docs/{major}/" + url_path[len("/docs/") :]
    return NEXTJS_SITE + url_path


def absolute_links(markdown: str, version: str, latest_major: int | None = None) -> str:
    """Turn the docs' site-relative links into nextjs.org addresses for ``version``.

    The docs link to each other as ``/docs/...``; outside nextjs.org (a hover, an answer
    in an editor) such a link leads nowhere, and on nextjs.org it would lead to the
    newest docs rather than the version the text was taken from.
    """
    return _SITE_LINK.sub(
        lambda match: f"]({site_url(match.group(1), version, latest_major)})", markdown
    )


def linked_pages(markdown: str) -> list[str]:
    """The docs pages a Markdown text links to, without anchors, in order, each once."""
    pages = (match.group(1).split("#", 1)[0].rstrip("/") for match in _SITE_LINK.finditer(markdown))
    return list(dict.fromkeys(page for page in pages if page))

"""Parse a Next.js docs tree into pages and retrievable sections.

The tree handed in is a folder holding ``docs/`` (``01-app``, ``02-pages``,
``03-architecture``, ``04-community``, ``index.md``; ``.md`` in the npm package,
``.mdx`` on GitHub) and optionally ``errors/*.mdx`` (GitHub archives only; served at
``/docs/messages/<name>``). A folder that is itself the ``docs/`` folder works too.

Each file becomes one page for one router, the way nextjs.org renders it:

- App Router pages (and architecture, community, the docs index and error pages,
  which nextjs.org shows in its default App Router context) drop ``<PagesOnly>``;
- Pages Router pages drop ``<AppOnly>``; a Pages Router page whose frontmatter says
  ``source: app/...`` is a generated stub and takes its body from that App Router
  page, keeping its own address, title and router.

Error pages get router ``"app"`` (the error messages cover both routers; ``"app"`` is
the site's default) and tag ``"errors"``.

Pages are split into sections at the headings of ``split_levels`` (and any shallower
heading, e.g. the letter headings of the glossary); long sections are split into
parts that fit ``max_tokens`` (see :mod:`raggin_lsp.corpus.chunk`).
"""

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from raggin_lsp.corpus.chunk import Block, estimate_tokens, split_blocks
from raggin_lsp.corpus.frontmatter import Frontmatter, split_frontmatter
from raggin_lsp.corpus.mdx import TargetRouter, clean_mdx
from raggin_lsp.corpus.model import Page, Router, Section, Tag
from raggin_lsp.corpus.render import ReadableMarkdown, Token, create_parser, plain_text, snippets_of
from raggin_lsp.corpus.slug import Slugger
from raggin_lsp.corpus.urls import url_path_for
from raggin_lsp.errors import RagginError

log = logging.getLogger(__name__)

DEFAULT_SPLIT_LEVELS: tuple[int, ...] = (2, 3)
DEFAULT_MAX_TOKENS = 512
DOC_EXTENSIONS = (".md", ".mdx")
_ROUTER_FOLDERS: dict[str, Router] = {
    "app": "app",
    "pages": "pages",
    "architecture": "architecture",
    "community": "community",
}
_NUMERIC_PREFIX = re.compile(r"^\d+-")
# Stub sources chain at most this deep (a stub of a stub); more means a cycle.
_MAX_SOURCE_DEPTH = 4


@dataclass(frozen=True)
class DocFile:
    """A file of the tree: where it is on disk and what the site calls it."""

    path: Path
    source_path: str  # "01-app/.../x.md", or "errors/<name>.mdx"
    tag: Tag

    @property
    def url_path(self) -> str:
        if self.tag == "errors":
            return url_path_for(self.source_path.removeprefix("errors/"), "errors")
        return url_path_for(self.source_path, "docs")

    @property
    def router(self) -> Router:
        if self.tag == "errors":
            return "app"
        first = _NUMERIC_PREFIX.sub("", self.source_path.split("/", 1)[0])
        return _ROUTER_FOLDERS.get(first, "app")


@dataclass(frozen=True)
class ParsedPage:
    """A page, its Markdown as its router shows it, and its sections."""

    page: Page
    markdown: str
    sections: tuple[Section, ...]
    stage: str | None = None  # frontmatter `version:`, e.g. "experimental"
    warnings: tuple[str, ...] = field(default=())


@dataclass
class _Draft:
    anchor: str
    heading_path: tuple[str, ...]
    blocks: list[Block] = field(default_factory=list)


def find_doc_files(root: Path) -> list[DocFile]:
    """Every docs and error file under ``root``, in a stable order."""
    docs_dir = root / "docs"
    if not docs_dir.is_dir():
        docs_dir = root
    errors_dir = root / "errors"
    files = [
        DocFile(path, path.relative_to(docs_dir).as_posix(), "docs")
        for path in _doc_paths(docs_dir)
        if not (errors_dir.is_dir() and path.is_relative_to(errors_dir))
    ]
    if errors_dir.is_dir():
        files.extend(
            DocFile(path, f"errors/{path.name}", "errors")
            for path in _doc_paths(errors_dir, recursive=False)
        )
    if not files:
        raise RagginError(
            f"No Next.js docs found in {root}: expected a docs/ folder of .md or .mdx files "
            "(as in the next package's dist/docs or the repository's docs/)."
        )
    return files


def _doc_paths(folder: Path, recursive: bool = True) -> list[Path]:
    pattern = "**/*" if recursive else "*"
    return sorted(
        (path for path in folder.glob(pattern) if path.suffix in DOC_EXTENSIONS and path.is_file()),
        key=lambda path: path.relative_to(folder).as_posix(),
    )


def parse_docs_tree(
    root: Path,
    version: str,
    *,
    split_levels: tuple[int, ...] = DEFAULT_SPLIT_LEVELS,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    count_tokens: Callable[[str], int] | None = None,
) -> list[Section]:
    """All sections of the docs tree at ``root``, file by file in path order.

    ``max_tokens`` bounds ``Section.embedding_text()`` as counted by ``count_tokens``
    (an embedder's ``count_tokens``); without one a cheap estimate is used
    (:func:`raggin_lsp.corpus.chunk.estimate_tokens`). A code block bigger than the
    budget stays whole in a part of its own.
    """
    pages = parse_pages(
        root, version, split_levels=split_levels, max_tokens=max_tokens, count_tokens=count_tokens
    )
    return [section for page in pages for section in page.sections]


def parse_pages(
    root: Path,
    version: str,
    *,
    split_levels: tuple[int, ...] = DEFAULT_SPLIT_LEVELS,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    count_tokens: Callable[[str], int] | None = None,
) -> list[ParsedPage]:
    """Every page of the docs tree at ``root``, in path order, with its sections."""
    files = find_doc_files(root)
    split = {file.source_path: split_frontmatter(_read(file.path)) for file in files}
    by_url = {file.url_path: file for file in files if file.tag == "docs"}
    parser = _PageParser(split_levels, max_tokens, count_tokens or estimate_tokens)
    pages = []
    for file in files:
        frontmatter, body = split[file.source_path]
        warnings = [frontmatter.error] if frontmatter.error else []
        if frontmatter.source:
            body = _resolve_source(frontmatter.source, body, by_url, split, warnings)
        parsed = parser.parse(file, version, frontmatter, body, warnings)
        for warning in parsed.warnings:
            log.warning("%s: %s", file.source_path, warning)
        pages.append(parsed)
    return pages


def parse_page(
    text: str,
    source_path: str,
    version: str,
    *,
    tag: Tag = "docs",
    source_text: str | None = None,
    split_levels: tuple[int, ...] = DEFAULT_SPLIT_LEVELS,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    count_tokens: Callable[[str], int] | None = None,
) -> ParsedPage:
    """One page from its text; ``source_text`` is the page its ``source:`` names."""
    frontmatter, body = split_frontmatter(text)
    warnings = [frontmatter.error] if frontmatter.error else []
    if frontmatter.source and source_text is not None:
        body = split_frontmatter(source_text)[1]
    file = DocFile(Path(source_path), source_path, tag)
    parser = _PageParser(split_levels, max_tokens, count_tokens or estimate_tokens)
    return parser.parse(file, version, frontmatter, body, warnings)


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        raise RagginError(f"Cannot read docs file {path}: {error.strerror or error}") from error


def _resolve_source(
    source: str,
    own_body: str,
    by_url: dict[str, DocFile],
    split: dict[str, tuple[Frontmatter, str]],
    warnings: list[str],
) -> str:
    """The body of the page a stub's ``source:`` names, following chains of stubs."""
    seen: set[str] = set()
    target = source
    for _ in range(_MAX_SOURCE_DEPTH):
        url = "/docs/" + target.strip().strip("/")
        file = by_url.get(url)
        if file is None or url in seen:
            break
        seen.add(url)
        frontmatter, body = split[file.source_path]
        if not frontmatter.source:
            return body
        target = frontmatter.source
    warnings.append(f"source {source!r} names no page of this tree; the page keeps its own body")
    return own_body


class _PageParser:
    def __init__(
        self, split_levels: Sequence[int], max_tokens: int, count_tokens: Callable[[str], int]
    ) -> None:
        if not split_levels or any(level not in range(1, 7) for level in split_levels):
            raise ValueError(f"split_levels must be heading levels 1-6, not {tuple(split_levels)}")
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be positive, not {max_tokens}")
        self._split_levels = frozenset(split_levels)
        self._shallowest = min(split_levels)
        self._max_tokens = max_tokens
        self._count_tokens = count_tokens
        self._markdown = create_parser()
        self._renderer = ReadableMarkdown()

    def parse(
        self,
        file: DocFile,
        version: str,
        frontmatter: Frontmatter,
        body: str,
        warnings: list[str],
    ) -> ParsedPage:
        target: TargetRouter = "pages" if file.router == "pages" else "app"
        cleaned = clean_mdx(body, target)
        warnings.extend(cleaned.warnings)
        tokens = cast(list[Token], self._markdown(cleaned.markdown))
        title = frontmatter.title
        if title is None:
            tokens, title = _take_leading_title(tokens, file)
        page = Page(
            version=version,
            source_path=file.source_path,
            url_path=file.url_path,
            title=title,
            router=file.router,
            tag=file.tag,
            nav_title=frontmatter.nav_title,
            description=frontmatter.description,
            related=tuple(_related_url(link) for link in frontmatter.related),
            source=frontmatter.source,
            version_history=_version_history(tokens),
        )
        sections = tuple(self._sections(page, tokens))
        return ParsedPage(page, cleaned.markdown, sections, frontmatter.stage, tuple(warnings))

    def _splits_at(self, level: int) -> bool:
        return level in self._split_levels or level < self._shallowest

    def _sections(self, page: Page, tokens: list[Token]) -> list[Section]:
        slugger = Slugger()
        drafts = [_Draft("", (page.title,))]
        open_headings: list[tuple[int, str]] = []
        for token in tokens:
            kind = token["type"]
            if kind == "blank_line":
                continue
            if kind == "heading":
                text = " ".join(plain_text(cast(list[Token], token["children"])).split())
                anchor = slugger.slug(text)
                level = cast(int, token["attrs"]["level"])
                if self._splits_at(level):
                    open_headings = [(lvl, name) for lvl, name in open_headings if lvl < level]
                    open_headings.append((level, text))
                    drafts.append(
                        _Draft(anchor, (page.title, *(name for _, name in open_headings)))
                    )
                    continue
            rendered = self._renderer.render_block(token)
            snippets = snippets_of(token)
            if rendered.strip() or snippets:
                drafts[-1].blocks.append(Block(rendered, snippets))
        sections: list[Section] = []
        for draft in drafts:
            if not draft.blocks:
                continue
            header = " > ".join(draft.heading_path)
            parts = split_blocks(header, draft.blocks, self._max_tokens, self._count_tokens)
            for number, part in enumerate(part for part in parts if part.text.strip() or part.code):
                sections.append(
                    Section(
                        version=page.version,
                        source_path=page.source_path,
                        url_path=page.url_path,
                        anchor=draft.anchor,
                        heading_path=draft.heading_path,
                        text=part.text,
                        code=part.code,
                        router=page.router,
                        tag=page.tag,
                        part=number,
                        description=page.description,
                    )
                )
        return sections


def _take_leading_title(tokens: list[Token], file: DocFile) -> tuple[list[Token], str]:
    """A page without a frontmatter title: its leading H1 (older error pages), else
    a title made from the file name."""
    first = next(
        (index for index, token in enumerate(tokens) if token["type"] != "blank_line"), None
    )
    if (
        first is not None
        and tokens[first]["type"] == "heading"
        and tokens[first]["attrs"]["level"] == 1
    ):
        title = " ".join(plain_text(cast(list[Token], tokens[first]["children"])).split())
        if title:
            return tokens[:first] + tokens[first + 1 :], title
    return tokens, title_from_path(file.source_path)


def title_from_path(source_path: str) -> str:
    """``02-guides/static-exports.md`` -> ``Static exports``; an index takes its folder's name."""
    parts = source_path.replace("\\", "/").split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    if stem == "index":
        stem = parts[-2] if len(parts) > 1 else "Next.js Docs"
    words = re.sub(r"[-_]+", " ", _NUMERIC_PREFIX.sub("", stem)).strip()
    return words[:1].upper() + words[1:] if words else source_path


def _related_url(link: str) -> str:
    if link.startswith(("/", "http://", "https://")):
        return link
    return "/docs/" + link


def _version_history(tokens: list[Token]) -> tuple[dict[str, str], ...]:
    """Rows of the table under a "Version History" heading, keyed by column name."""
    in_history = False
    for token in tokens:
        if token["type"] == "heading":
            in_history = (
                plain_text(cast(list[Token], token["children"])).strip().lower()
                == "version history"
            )
        elif in_history and token["type"] == "table":
            return _table_rows(token)
    return ()


def _table_rows(table: Token) -> tuple[dict[str, str], ...]:
    header: list[str] = []
    rows: list[dict[str, str]] = []
    for part in cast(list[Token], table["children"]):
        if part["type"] == "table_head":
            header = [_cell_text(cell).lower() for cell in cast(list[Token], part["children"])]
            continue
        for row in cast(list[Token], part["children"]):
            cells = [_cell_text(cell) for cell in cast(list[Token], row["children"])]
            rows.append(dict(zip(header, cells, strict=False)))
    return tuple(rows)


def _cell_text(cell: Token) -> str:
    return " ".join(plain_text(cast(list[Token], cell["children"])).split())


__all__ = [
    "DocFile",
    "ParsedPage",
    "find_doc_files",
    "parse_docs_tree",
    "parse_page",
    "parse_pages",
    "title_from_path",
]

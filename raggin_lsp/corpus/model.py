"""The units the whole pipeline passes along: pages, sections and code snippets.

A :class:`Section` is exactly what gets embedded and stored. Its ``content_hash``
ignores the version, so a section that did not change between two releases hashes
the same and is embedded once (see ``raggin_lsp.store``).
"""

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Router = Literal["app", "pages", "architecture", "community"]
Tag = Literal["docs", "errors", "page"]  # "page": a page's outline (corpus/summary.py)

NEXTJS_SITE = "https://nextjs.org"


@dataclass(frozen=True)
class CodeSnippet:
    """A fenced code block; never split across sections."""

    language: str
    code: str
    filename: str | None = None
    switcher: bool = False
    highlight: str | None = None


@dataclass(frozen=True)
class Section:
    """One retrievable piece of a docs page (a heading's content, or part of it).

    ``text`` is readable Markdown: prose plus the section's code blocks as fences, in
    document order. ``code`` lists the same code blocks as structured snippets.
    """

    version: str
    source_path: str  # inside the docs tree: "01-app/01-getting-started/01-installation.md"
    url_path: str  # site path, e.g. "/docs/app/getting-started/installation"
    anchor: str  # heading slug without "#", "" for the part before the first heading
    heading_path: tuple[str, ...]  # (page title, H2, H3)
    text: str
    code: tuple[CodeSnippet, ...] = ()
    router: Router = "app"
    tag: Tag = "docs"
    part: int = 0  # index of this part when a long section was split
    description: str = ""

    @property
    def title(self) -> str:
        return self.heading_path[0] if self.heading_path else ""

    @property
    def heading(self) -> str:
        """The heading path as one line: ``Title > H2 > H3``."""
        return " > ".join(self.heading_path)

    @property
    def url_path_with_anchor(self) -> str:
        return f"{self.url_path}#{self.anchor}" if self.anchor else self.url_path

    @property
    def content_hash(self) -> str:
        """Equal in two versions exactly when everything but the version is equal."""
        fields = asdict(self)
        del fields["version"]
        canonical = json.dumps(fields, sort_keys=True, ensure_ascii=False, default=list)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def embedding_text(self) -> str:
        """What the text vectors see: where the section sits, then its content."""
        return f"{self.heading}\n\n{self.text}"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["heading_path"] = list(self.heading_path)
        data["code"] = [asdict(snippet) for snippet in self.code]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Section":
        known = {name for name in cls.__dataclass_fields__}
        values = {key: value for key, value in data.items() if key in known}
        values["heading_path"] = tuple(values.get("heading_path", ()))
        values["code"] = tuple(CodeSnippet(**snippet) for snippet in values.get("code", ()))
        return cls(**values)


@dataclass(frozen=True)
class Page:
    """A parsed docs file, before it is cut into sections."""

    version: str
    source_path: str
    url_path: str
    title: str
    router: Router
    tag: Tag
    nav_title: str | None = None
    description: str = ""
    related: tuple[str, ...] = ()
    source: str | None = None  # frontmatter `source:` of a generated Pages Router stub
    version_history: tuple[dict[str, str], ...] = field(default=())

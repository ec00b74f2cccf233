"""The API catalog of one docs version: every API reference page, derived from the docs.

For each page under ``/api-reference/`` the catalog records what the page documents
(its names, and how code refers to them: imports, module specifiers, exports,
directives, file names, ``next.config`` keys), its kind, router, one-line description,
its "Version History" rows, and what the docs say was deprecated, renamed or removed,
with the replacement when they name one. Nothing here is typed in by hand:

* **Kind** is the docs' own category: the folder after ``api-reference`` (with the
  nested folders of file conventions, ``metadata`` and ``route-segment-config``).
* **Names** come from the page title (``Image Component`` -> ``Image``, ``proxy.js`` ->
  ``proxy``) and from backticked names in its H2 headings (``The `metadata` object``).
* **How code refers to them** is read from the page's own code examples with the same
  tree-sitter reader that reads the user's files (:mod:`raggin_lsp.code.syntax`): an
  example that imports the name says from which module; one that exports it says it is
  an export; a directive example says it is a directive; a ``next.config`` example
  that sets the key says it is a config key; the examples' ``filename=`` says which
  files a file convention is, and in which folder.
* **Deprecations** come from the sentences of the title, description, introduction and
  Version History rows: ``X is deprecated ... renamed to Y``, ``Renamed from X to Y``,
  ``Y stabilized. X deprecated``, ``X deprecated for Y``, ``Y introduced, replacing X``.
  A name the rows call old that is still a live API of the version (``next/image``) is
  not deprecated; a change said to happen under a condition ("removed when ...") is
  history only; sub-options ("the `priority` prop") belong to their page, not to code.

Storage. The catalog is derived from the parsed docs tree (the same parse the index is
built from) and kept as JSON in the cache folder, keyed by the version and a digest of
this module and the code reader, so a new process reads it in milliseconds and a change
of the rules rebuilds it. It is built on first use from the docs that indexing cached
(about 4 s for a version, parse included), so it always describes the docs the index
was made from, and it works for a version whose docs are cached but not embedded.
"""

import hashlib
import json
import logging
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from raggin_lsp.code.syntax import SourceFile

if TYPE_CHECKING:  # parsing (mistune, YAML) is imported only when a catalog is built
    from raggin_lsp.corpus.parse import ParsedPage

log = logging.getLogger(__name__)

Status = Literal["deprecated", "renamed", "removed"]
RefMode = Literal["import", "module", "export", "directive", "config", "file"]

CATALOG_FOLDER = "apis"
_API_SEGMENT = "/api-reference/"
_NESTED_KINDS = ("metadata", "route-segment-config")
_CODE_LANGUAGES = {"js", "jsx", "ts", "tsx", "javascript", "typescript", "mjs", "cjs"}
_TITLE_SUFFIX = re.compile(r"\s*\((deprecated|legacy)\)\s*$|\s+(component|module|cli)$", re.I)
_QUOTES = "'\"`"
_FILE_WORD = re.compile(r"^([a-z][\w-]*)\.(js|txt|xml|json)$")
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")
_NAME = re.compile(r"^(@?[A-Za-z_$][\w$./-]*)$")
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_LINKED = re.compile(r"\[`([^`\]]+)`\]\(([^)\s]+)\)")
_SENTENCE_END = re.compile(r"(?<=[.!])\s+(?=[A-Z`*\[])")
_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")
_DEPRECATED = re.compile(r"\b(deprecated|renamed|removed|replacing)\b", re.I)
_MEMBER_NOUN = re.compile(
    r"`\s+(prop|props|option|options|config|configuration|property|properties|parameter|"
    r"parameters|argument|field|fields|key|keys)\b",
    re.I,
)
_PREDICATE = re.compile(r"(^\W*|\b(is|was|are|were|been|currently)\s+\W*)$", re.I)
_CONDITION = re.compile(r"\b(when|if|unless)\b", re.I)
_REMOVED_FROM = re.compile(r"^\s*from\b", re.I)
_RENAMED_FROM_TO = re.compile(r"renamed from `([^`]+)` to `([^`]+)`", re.I)
_RENAMED_TO = re.compile(r"renamed to (?:\[)?`([^`]+)`", re.I)
_BARE_RENAMED_TO = re.compile(r"renamed to ([A-Za-z][\w./-]*)", re.I)
_REPLACING = re.compile(r"replacing (?:the )?`([^`]+)`", re.I)
_FOR_OR_FAVOR = re.compile(r"deprecated (?:for|in favou?r of) (?:\[)?`([^`]+)`", re.I)
_PLEASE_USE = re.compile(
    r"\b(?:please use|use|using) (?:\[)?`([^`]+)`(?:\]\([^)]*\))? instead", re.I
)
_STABILIZED = re.compile(r"`([^`]+)` (?:is )?stabilized", re.I)
_BARE_SUBJECT = re.compile(r"^\s*(?:The\s+)?([A-Za-z][\w./-]*)\s+(?:is|was|has been)\s", re.I)


@dataclass(frozen=True)
class HistoryRow:
    """One row of a page's "Version History" table, Markdown kept (backticks)."""

    version: str
    change: str


@dataclass(frozen=True)
class Symbol:
    """How code names an API: ``mode`` and the ``name`` (plus ``module`` for imports,
    ``folder`` for files: ``app``, ``pages`` or ``""`` for the project root)."""

    mode: RefMode
    name: str
    module: str | None = None
    folder: str | None = None


@dataclass(frozen=True)
class Deprecation:
    """What the docs say is deprecated, renamed or removed, and what replaces it."""

    symbol: Symbol
    status: Status
    since: str | None  # the Version History row's version, when a row says it
    evidence: str  # the docs' sentence
    page: str  # the page saying it
    replacement: Symbol | None = None
    replacement_page: str | None = None


@dataclass(frozen=True)
class Api:
    """One API reference page of a version."""

    url_path: str
    title: str
    kind: str
    router: str
    description: str = ""
    names: tuple[str, ...] = ()
    symbols: tuple[Symbol, ...] = ()
    history: tuple[HistoryRow, ...] = ()
    twin: str | None = None  # the same page for the other router

    @property
    def name(self) -> str:
        return self.names[0] if self.names else self.title

    @property
    def import_path(self) -> str | None:
        return next((s.module for s in self.symbols if s.mode == "import"), None) or next(
            (s.name for s in self.symbols if s.mode == "module"), None
        )

    @property
    def file_pattern(self) -> str | None:
        stems = sorted({s.name for s in self.symbols if s.mode == "file"})
        return ", ".join(f"{stem}.*" for stem in stems) or None


@dataclass
class ApiCatalog:
    """Every API reference page of ``version`` and the deprecations its docs state."""

    version: str
    apis: dict[str, Api] = field(default_factory=dict)  # url_path -> api
    deprecations: list[Deprecation] = field(default_factory=list)

    def by_symbol(self, symbol: Symbol) -> list[Api]:
        """Pages documenting ``symbol`` (``folder`` is ignored), App Router first."""
        key = (symbol.mode, symbol.name, symbol.module)
        found = [
            api
            for api in self.apis.values()
            if any((s.mode, s.name, s.module) == key for s in api.symbols)
        ]
        return sorted(found, key=lambda api: (api.router != "app", api.url_path))

    def deprecation_of(self, symbol: Symbol) -> Deprecation | None:
        key = (symbol.mode, symbol.name, symbol.module)
        for deprecation in self.deprecations:
            found = deprecation.symbol
            if (found.mode, found.name, found.module) == key:
                return deprecation
        return None

    def counts(self) -> dict[str, int]:
        kinds: dict[str, int] = {}
        for api in self.apis.values():
            kinds[api.kind] = kinds.get(api.kind, 0) + 1
        return dict(sorted(kinds.items()))

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "apis": [asdict(api) for api in self.apis.values()],
            "deprecations": [asdict(d) for d in self.deprecations],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ApiCatalog":
        apis = [
            Api(
                **{
                    **api,
                    "names": tuple(api["names"]),
                    "symbols": tuple(Symbol(**s) for s in api["symbols"]),
                    "history": tuple(HistoryRow(**row) for row in api["history"]),
                }
            )
            for api in data["apis"]
        ]
        deprecations = [
            Deprecation(
                **{
                    **d,
                    "symbol": Symbol(**d["symbol"]),
                    "replacement": Symbol(**d["replacement"]) if d["replacement"] else None,
                }
            )
            for d in data["deprecations"]
        ]
        return cls(str(data["version"]), {api.url_path: api for api in apis}, deprecations)


# --------------------------------------------------------------------------- building


def build_catalog(version: str, pages: Iterable["ParsedPage"]) -> ApiCatalog:
    """Derive the catalog of ``version`` from its parsed pages (see the module doc)."""
    parsed = [page for page in pages if _API_SEGMENT in page.page.url_path]
    catalog = ApiCatalog(version)
    for page in parsed:
        api = _api_of(page)
        catalog.apis[api.url_path] = api
    _adopt_sibling_modes(catalog)
    for url_path, api in list(catalog.apis.items()):
        other = _twin_path(url_path)
        if other in catalog.apis:
            catalog.apis[url_path] = replace(api, twin=other)
    catalog.deprecations = _deprecations(catalog, {p.page.url_path: p for p in parsed})
    return catalog


def _adopt_sibling_modes(catalog: ApiCatalog) -> None:
    """A page whose examples show no use of its name (``preferredRegion``, deprecated, has
    none) is used the way every other page of its kind is, when they all agree."""
    overviews = {url for url in catalog.apis if any(o.startswith(url + "/") for o in catalog.apis)}
    modes: dict[str, set[RefMode]] = {}
    for url, api in catalog.apis.items():
        if url not in overviews:
            modes.setdefault(api.kind, set()).update(s.mode for s in api.symbols)
    for url, api in catalog.apis.items():
        kind_modes = modes.get(api.kind, set())
        if api.symbols or url in overviews or len(kind_modes) != 1:
            continue
        mode = next(iter(kind_modes))
        if mode in ("export", "config") and _IDENTIFIER.match(api.name):
            catalog.apis[url] = replace(api, symbols=(Symbol(mode, api.name),))


def _kind(url_path: str) -> str:
    parts = url_path.split(_API_SEGMENT, 1)[1].split("/")
    if parts[0] == "file-conventions" and len(parts) > 2 and parts[1] in _NESTED_KINDS:
        return parts[1]
    if parts[0] == "config" and len(parts) > 1 and parts[1] == "next-config-js":
        return "next-config"
    return parts[0] or "overview"


def _twin_path(url_path: str) -> str:
    if url_path.startswith("/docs/app/"):
        return "/docs/pages/" + url_path.removeprefix("/docs/app/")
    return "/docs/app/" + url_path.removeprefix("/docs/pages/")


def own_name(title: str) -> str:
    """The name a page's title gives its API: ``Image Component`` -> ``Image``,
    ``'use cache: private'`` -> ``use cache: private``, ``proxy.js`` stays."""
    name = _TITLE_SUFFIX.sub("", title.strip()).strip().strip(_QUOTES).strip()
    return name.rstrip("*")


def name_key(name: str) -> str:
    """Names compared across pages: ``proxy.js`` and ``Proxy`` are both ``proxy``."""
    key = name.strip().strip(_QUOTES).strip("<>/ ").removesuffix("()")
    match = _FILE_WORD.match(key.lower())
    return match.group(1) if match else key.lower()


def _api_of(parsed: "ParsedPage") -> Api:
    page = parsed.page
    title_name = own_name(page.title)
    slug = page.url_path.rsplit("/", 1)[-1]
    examples = _examples(parsed)
    exported = [r.name for e in examples for r in e.source.references if r.kind == "export"]
    heading_words = {
        word
        for section in parsed.sections
        if len(section.heading_path) > 1
        for word in re.findall(r"[\w$]+", section.heading_path[1])
    }
    names = list(dict.fromkeys([title_name, *(n for n in exported if n in heading_words)]))
    kind = _kind(page.url_path)
    symbols: list[Symbol] = []
    symbols += _import_symbols(title_name, slug, examples)
    symbols += _export_symbols(names, examples)
    symbols += _directive_symbols(title_name, examples)
    symbols += _config_symbols((title_name, slug), examples, kind)
    symbols += _file_symbols(page.title, parsed, kind)
    return Api(
        url_path=page.url_path,
        title=page.title,
        kind=kind,
        router=page.router,
        description=page.description,
        names=tuple(names),
        symbols=tuple(dict.fromkeys(symbols)),
        history=_history(parsed),
    )


@dataclass(frozen=True)
class _Example:
    filename: str
    source: SourceFile


def _examples(parsed: "ParsedPage") -> list[_Example]:
    examples = []
    seen: set[str] = set()
    for section in parsed.sections:
        for snippet in section.code:
            if snippet.language.lower() not in _CODE_LANGUAGES or snippet.code in seen:
                continue
            seen.add(snippet.code)
            filename = snippet.filename or f"example.{_suffix(snippet.language)}"
            examples.append(_Example(filename, SourceFile(snippet.code, filename)))
    return examples


def _suffix(language: str) -> str:
    return {"javascript": "js", "typescript": "ts"}.get(language.lower(), language.lower())


def _is_next_module(module: str | None) -> bool:
    return module is not None and (module == "next" or module.startswith("next/"))


def _import_symbols(name: str, slug: str, examples: Sequence[_Example]) -> list[Symbol]:
    """The examples' imports of the page's name; for a component or module page whose
    name is not imported by that name (``Font``), the next modules named like the page."""
    found: list[Symbol] = []
    modules: list[str] = []
    for example in examples:
        for ref in example.source.references:
            if ref.kind != "import" or not _is_next_module(ref.module):
                continue
            assert ref.module is not None
            if ref.name == name or (ref.name == "default" and ref.local == name):
                found.append(Symbol("import", ref.name, ref.module))
                if ref.name == "default":
                    modules.append(ref.module)
            elif ref.module.removeprefix("next/").split("/")[0] == slug:
                modules.append(ref.module)
    if name.startswith("next/"):  # a module page (``next/root-params``)
        modules.append(name)
    return found + [Symbol("module", module) for module in dict.fromkeys(modules)]


def _export_symbols(names: Sequence[str], examples: Sequence[_Example]) -> list[Symbol]:
    exported = {
        ref.name
        for example in examples
        for ref in example.source.references
        if ref.kind == "export"
    }
    return [Symbol("export", name) for name in names if name in exported and name != "default"]


def _directive_symbols(name: str, examples: Sequence[_Example]) -> list[Symbol]:
    found = any(
        ref.kind == "directive" and ref.name == name
        for example in examples
        for ref in example.source.references
    )
    return [Symbol("directive", name)] if found else []


def _config_symbols(
    candidates: Sequence[str], examples: Sequence[_Example], kind: str
) -> list[Symbol]:
    """Config keys the page's ``next.config`` examples set, named like the page."""
    if kind != "next-config":
        return []
    keys = {
        ref.name
        for example in examples
        for ref in example.source.references
        if ref.kind == "config"
    }
    found = []
    for candidate in dict.fromkeys(candidates):
        for key in (candidate, f"experimental.{candidate}"):
            if key in keys:
                found.append(Symbol("config", key))
    return found


def _file_symbols(title: str, parsed: "ParsedPage", kind: str) -> list[Symbol]:
    """Files a file-convention page names in its title (``proxy.js``, ``robots.txt``,
    ``opengraph-image and twitter-image``), placed where the examples' file names are."""
    if kind not in ("file-conventions", "metadata"):
        return []
    words = [w.strip(_QUOTES) for w in re.split(r"[\s,]+", title) if w]
    stems = [m.group(1) for w in words if (m := _FILE_WORD.match(w))]
    filenames = [
        snippet.filename.replace("\\", "/")
        for section in parsed.sections
        for snippet in section.code
        if snippet.filename
    ]
    example_stems = {Path(name).name.split(".")[0] for name in filenames}
    stems += [w for w in words if w in example_stems and re.fullmatch(r"[a-z][\w-]*", w)]
    found = []
    for stem in dict.fromkeys(stems):
        folders = {_folder_of(name) for name in filenames if Path(name).name.split(".")[0] == stem}
        folder = folders.pop() if len(folders) == 1 else None
        found.append(Symbol("file", stem, folder=folder))
    return found


def _folder_of(filename: str) -> str:
    parts = filename.removeprefix("src/").split("/")
    return parts[0] if len(parts) > 1 and parts[0] in ("app", "pages") else ""


def _history(parsed: "ParsedPage") -> tuple[HistoryRow, ...]:
    rows: list[HistoryRow] = []
    for section in parsed.sections:
        if not section.heading_path or section.heading_path[-1].lower() != "version history":
            continue
        for line in section.text.splitlines():
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) >= 2 and _VERSION.fullmatch(cells[0].strip("`")):
                rows.append(HistoryRow(cells[0].strip("`"), " | ".join(cells[1:])))
    return tuple(rows)


# ----------------------------------------------------------------------- deprecations


@dataclass(frozen=True)
class _Statement:
    old: str
    status: Status
    new: str | None
    new_url: str | None
    since: str | None
    sentence: str
    page: str


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def _intro(parsed: "ParsedPage") -> str:
    first = next((s for s in parsed.sections if s.anchor == ""), None)
    paragraphs = first.text.split("\n\n")[:3] if first else []
    return " ".join(p.lstrip("> ") for p in paragraphs)


def _statements(parsed: "ParsedPage", api: Api) -> list[_Statement]:
    """Every (old name, status, new name) the page's title, description, introduction
    and Version History rows state."""
    found: list[_Statement] = []
    page = parsed.page
    own = api.name
    texts: list[tuple[str, str | None]] = [(page.description, None), (_intro(parsed), None)]
    if re.search(r"\(deprecated\)", page.title, re.I):
        found.append(_Statement(own, "deprecated", None, None, None, page.title, page.url_path))
    texts += [(row.change, row.version) for row in api.history]
    for text, since in texts:
        sentences = _sentences(text)
        for number, sentence in enumerate(sentences):
            following = sentences[number + 1] if number + 1 < len(sentences) else ""
            found += _in_sentence(sentence, following, own, since, page.url_path, text)
    return found


def _in_sentence(
    sentence: str, following: str, own: str, since: str | None, page: str, whole: str
) -> list[_Statement]:
    keyword = _DEPRECATED.search(sentence)
    if keyword is None or _MEMBER_NOUN.search(sentence):
        return []
    rest = sentence[keyword.end() :].split(" in favor of ")[0]
    if _CONDITION.search(rest) or (
        keyword.group(1).lower() == "removed" and _REMOVED_FROM.match(rest)
    ):
        return []
    links = {text: url for text, url in _LINKED.findall(sentence + " " + following)}
    stated: list[tuple[str, Status, str | None]] = []
    renamed = _RENAMED_FROM_TO.search(sentence)
    if renamed:
        stated.append((renamed.group(1), "renamed", renamed.group(2)))
    for match in _REPLACING.finditer(sentence):
        before = _BACKTICKED.findall(sentence[: match.start()])
        stated.append((match.group(1), "renamed", before[0] if before else own))
    if not stated:
        subjects = _BACKTICKED.findall(sentence[: keyword.start()])
        bare = _BARE_SUBJECT.match(sentence)
        if not subjects and bare and bare.group(1).lower() not in ("this", "it", "the"):
            subjects = [bare.group(1)]
        if not subjects and _PREDICATE.search(sentence[: keyword.start()]):
            subjects = [own]  # "Renamed to `cacheHandler`", "This feature is deprecated"
        status: Status = "removed" if keyword.group(1).lower() == "removed" else "deprecated"
        new = _replacement(sentence, following, own, whole)
        if _RENAMED_TO.search(sentence) or _BARE_RENAMED_TO.search(sentence):
            status = "renamed"
        stated += [(subject, status, new) for subject in subjects]
    return [
        _Statement(old, status, new, links.get(new) if new else None, since, sentence, page)
        for old, status, new in stated
        if _NAME.match(old) and not _VERSION.fullmatch(old) and old != new
    ]


def _replacement(sentence: str, following: str, own: str, whole: str) -> str | None:
    for pattern in (_RENAMED_TO, _FOR_OR_FAVOR):
        match = pattern.search(sentence)
        if match:
            return match.group(1)
    bare = _BARE_RENAMED_TO.search(sentence)
    if bare:
        return bare.group(1)
    for text in (sentence, following):
        match = _PLEASE_USE.search(text)
        if match:
            return match.group(1)
    favor = sentence.split(" in favor of ", 1)
    if len(favor) == 2:
        names = set(_BACKTICKED.findall(favor[1]))
        return names.pop() if len(names) == 1 else None
    stabilized = _STABILIZED.search(whole)
    if stabilized and name_key(stabilized.group(1)) == name_key(own):
        return stabilized.group(1)
    return None


def _deprecations(catalog: ApiCatalog, parsed: dict[str, "ParsedPage"]) -> list[Deprecation]:
    """Statements turned into deprecations of symbols code can use (see the module doc)."""
    statements = [s for url, api in catalog.apis.items() for s in _statements(parsed[url], api)]
    deprecated_pages = {
        s.page
        for s in statements
        if (
            (old := _symbol_for(s.old, catalog.apis[s.page])) is not None
            and old in catalog.apis[s.page].symbols
            and s.status != "renamed"
        )
        or name_key(s.old) == name_key(catalog.apis[s.page].name)
    }
    live = {
        (sym.mode, sym.name, sym.module)
        for url, api in catalog.apis.items()
        if url not in deprecated_pages
        for sym in api.symbols
    }
    found: dict[tuple[Any, ...], Deprecation] = {}
    for statement in statements:
        api = catalog.apis[statement.page]
        old = _symbol_for(statement.old, api)
        if old is None or (old.mode, old.name, old.module) in live:
            continue
        new_page = _page_for(statement, catalog)
        new = _symbol_for(statement.new, catalog.apis[new_page]) if new_page else None
        if statement.new and new is None and new_page is None:
            new = _like(old, statement.new)
        key = (old.mode, old.name, old.module)
        if key in found and found[key].replacement is not None:
            continue
        found[key] = Deprecation(
            symbol=old,
            status=statement.status,
            since=_version_name(statement.since),
            evidence=statement.sentence,
            page=statement.page,
            replacement=new,
            replacement_page=new_page,
        )
    return sorted(found.values(), key=lambda d: (d.symbol.mode, d.symbol.name, d.page))


def _version_name(version: str | None) -> str | None:
    return version.lstrip("v") if version else None


def _page_for(statement: _Statement, catalog: ApiCatalog) -> str | None:
    if statement.new is None:
        return None
    if statement.new_url:
        url = statement.new_url.split("#", 1)[0]
        return url if url in catalog.apis else None
    own = catalog.apis[statement.page]
    if name_key(statement.new) == name_key(own.name):
        return statement.page
    own_router = own.router
    candidates = [
        api
        for api in catalog.apis.values()
        if name_key(api.name) == name_key(statement.new)
        or any(s.name == statement.new for s in api.symbols)
    ]
    candidates.sort(key=lambda api: (api.router != own_router, api.url_path))
    return candidates[0].url_path if candidates else None


def _symbol_for(name: str | None, api: Api) -> Symbol | None:
    """The symbol ``name`` is, read the way ``api``'s own names are used in code."""
    if not name:
        return None
    if _is_next_module(name):
        return Symbol("module", name)
    key = name_key(name)
    for symbol in api.symbols:
        if name_key(symbol.name) == key or (symbol.name == "default" and key == name_key(api.name)):
            return symbol
    own = next(
        (s for s in api.symbols if s.mode != "module" and name_key(s.name) == name_key(api.name)),
        None,
    )
    return _like(own, key if own and own.mode == "file" else name.strip(_QUOTES)) if own else None


def _like(model: Symbol, name: str) -> Symbol | None:
    """``name`` used the way ``model`` is (an old import from the same module...)."""
    if model.mode == "module":
        return Symbol("module", name) if _is_next_module(name) else None
    if model.mode == "import" and not _IDENTIFIER.match(name):
        return None
    if model.mode == "config" and model.name.startswith("experimental."):
        name = f"experimental.{name}"
    name = name_key(name) if model.mode == "file" else name
    return replace(model, name=name)


# ----------------------------------------------------------------------------- storage


def _code_digest() -> str:
    digest = hashlib.sha256()
    here = Path(__file__).resolve()
    for path in (here, here.parent.parent / "code" / "syntax.py"):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def catalog_file(folder: Path, version: str) -> Path:
    return folder / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', version)}-{_code_digest()}.json"


def load_cached(folder: Path, version: str) -> ApiCatalog | None:
    try:
        data = json.loads(catalog_file(folder, version).read_text(encoding="utf-8"))
        return ApiCatalog.from_json(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save(folder: Path, catalog: ApiCatalog) -> None:
    """Write atomically; an unwritable cache only costs a rebuild next time."""
    file = catalog_file(folder, catalog.version)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(catalog.to_json()), encoding="utf-8")
        tmp.replace(file)
    except OSError as error:
        log.debug("cannot cache the API catalog of %s: %s", catalog.version, error)


def catalog_of_tree(root: Path, version: str, folder: Path | None = None) -> ApiCatalog:
    """The catalog of the docs tree at ``root``: cached in ``folder`` when given."""
    from raggin_lsp.corpus.parse import parse_pages

    if folder is not None:
        cached = load_cached(folder, version)
        if cached is not None:
            return cached
    catalog = build_catalog(version, parse_pages(root, version))
    if folder is not None:
        save(folder, catalog)
    return catalog


def cached_catalog(version: str) -> ApiCatalog | None:
    """The catalog of ``version`` when the network is not needed for it: from the cache
    folder, else built from the version's cached docs; ``None`` when neither is there
    (an index imported without its docs)."""
    from raggin_lsp import paths
    from raggin_lsp.corpus.fetch import entry_path, is_cached

    folder = paths.cache_dir() / CATALOG_FOLDER
    cached = load_cached(folder, version)
    if cached is not None or not is_cached(version):
        return cached
    return catalog_of_tree(entry_path(version), version, folder)


def catalog_key(version: str) -> str:
    """Changes when the rules that derive ``version``'s catalog do."""
    return f"{version}-{_code_digest()}"


def load_catalog(version: str, *, workspace: Path | None = None) -> ApiCatalog:
    """The catalog of ``version``, from the cache folder, else built from its docs
    (fetched first when they are not cached yet)."""
    from raggin_lsp import paths
    from raggin_lsp.corpus.fetch import ensure_docs

    folder = paths.cache_dir() / CATALOG_FOLDER
    cached = load_cached(folder, version)
    if cached is not None:
        return cached
    return catalog_of_tree(ensure_docs(version, workspace=workspace), version, folder)

"""What retrieval knows about one docs version, derived from its docs.

Nothing here is typed in by hand: every fact is read from the sections of the version
(their payloads in the index) and from its API catalog, itself derived from the same
docs, so it holds for whatever version is searched.

* **API pages**: every ``api-reference`` page, keyed by the names the version's API
  catalog (:mod:`raggin_lsp.corpus.apis`) gives it: its title normalised as a name
  (``revalidatePath``, ``proxy.js`` -> ``proxy``, ``Image Component`` -> ``image``) and
  how code refers to it (``next/image``, ``experimental.ppr``, ``opengraph-image``). A
  question that names an API is routed to its reference page. Without a catalog (the
  version's docs are not cached), the titles alone.
* **Old names**: the catalog's deprecations, read from the docs' own sentences and
  "Version History" tables, say which names were renamed, replaced or deprecated and
  which page replaces them (``middleware`` -> ``proxy``, ``unstable_noStore`` ->
  ``connection``); an old name in a question routes to that page and its twin.
* **Hubness**: how many of the version's API names a page mentions. The glossary and the
  upgrade guides mention nearly all of them, so they match almost any question
  lexically; measured this way, they can be demoted without naming them.
* **Twins**: the same page for the App Router and for the Pages Router
  (``/docs/app/X`` and ``/docs/pages/X``).
"""

import json
import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from raggin_lsp.corpus.summary import PAGE_TAG

if TYPE_CHECKING:
    from raggin_lsp.corpus.apis import ApiCatalog

_API_SEGMENT = "/api-reference/"
_FILE_SUFFIX = re.compile(r"\.(js|jsx|ts|tsx|mjs|cjs|json|txt)$")
_TITLE_NOISE = re.compile(r"\s*\((deprecated|legacy)\)\s*$|\s+(component|function|module)$")
# A name must be at least this long to count towards hubness (skips "io", "env", "fetch"...).
_HUB_NAME_MIN = 5
_WORD = re.compile(r"[\w-]+")


def api_key(name: str) -> str:
    """``proxy.js`` -> ``proxy``, ``next/image`` -> ``image``, ``<Link>`` -> ``link``."""
    key = name.strip().strip("<>/ ").lower()
    key = re.sub(r"^(next/|@next/)", "", key)
    key = re.sub(r"\(\)$", "", key)
    key = _FILE_SUFFIX.sub("", key)
    key = _TITLE_NOISE.sub("", key)
    return key.strip()


@dataclass(frozen=True)
class PageInfo:
    url_path: str
    title: str
    router: str
    description: str = ""


@dataclass
class DocsMap:
    version: str
    pages: dict[str, PageInfo] = field(default_factory=dict)
    api_pages: dict[str, set[str]] = field(default_factory=dict)  # api key -> pages
    renamed: dict[str, set[str]] = field(default_factory=dict)  # old key -> new pages
    hubness: dict[str, float] = field(default_factory=dict)  # page -> 0..1
    twins: dict[str, str] = field(default_factory=dict)  # page -> other router's page

    def pages_for(self, identifiers: Iterable[str], *, old_names: bool = True) -> list[str]:
        """Reference pages the question names (and, with ``old_names``, renamed ones)."""
        found: list[str] = []
        for identifier in identifiers:
            key = api_key(identifier)
            found.extend(sorted(self.api_pages.get(key, ())))
            if old_names:
                found.extend(sorted(self.renamed.get(key, ())))
        return list(dict.fromkeys(found))

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "pages": [asdict(page) for page in self.pages.values()],
            "api_pages": {key: sorted(pages) for key, pages in self.api_pages.items()},
            "renamed": {key: sorted(pages) for key, pages in self.renamed.items()},
            "hubness": self.hubness,
            "twins": self.twins,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "DocsMap":
        return cls(
            version=str(data["version"]),
            pages={page["url_path"]: PageInfo(**page) for page in data["pages"]},
            api_pages={key: set(pages) for key, pages in data["api_pages"].items()},
            renamed={key: set(pages) for key, pages in data["renamed"].items()},
            hubness={key: float(value) for key, value in data["hubness"].items()},
            twins=dict(data["twins"]),
        )

    def new_names(self, identifiers: Iterable[str]) -> list[str]:
        """Titles of the pages that replaced the old names used, to add to the query."""
        titles = [
            self.pages[page].title
            for identifier in identifiers
            for page in sorted(self.renamed.get(api_key(identifier), ()))
            if page in self.pages
        ]
        return list(dict.fromkeys(titles))


def cached_docs_map(key: str, folder: Path, build: Callable[[], DocsMap]) -> DocsMap:
    """``build()`` once per ``key`` (which must change when the version's sections do),
    kept as JSON in ``folder`` so that a new process skips reading every section."""
    file = folder / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', key)}.json"
    try:
        return DocsMap.from_json(json.loads(file.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    docs_map = build()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(docs_map.to_json()), encoding="utf-8")
        tmp.replace(file)
    except OSError:
        pass  # an unwritable cache only costs the build again next time
    return docs_map


def build_docs_map(
    version: str, payloads: Iterable[Mapping[str, Any]], catalog: "ApiCatalog | None" = None
) -> DocsMap:
    """Derive a :class:`DocsMap` from the stored sections of ``version`` and, when given,
    its API ``catalog`` (which knows how code names each API, and its deprecations)."""
    docs = DocsMap(version)
    texts: dict[str, list[str]] = defaultdict(list)
    for payload in payloads:
        url_path = str(payload.get("url_path", ""))
        if not url_path or payload.get("tag") == PAGE_TAG:
            continue
        heading_path = [str(h) for h in payload.get("heading_path") or ()]
        if url_path not in docs.pages:
            docs.pages[url_path] = PageInfo(
                url_path=url_path,
                title=heading_path[0] if heading_path else url_path.rsplit("/", 1)[-1],
                router=str(payload.get("router", "")),
                description=str(payload.get("description", "")),
            )
        texts[url_path].append(str(payload.get("text", "")))

    for url_path, page in docs.pages.items():
        if _API_SEGMENT in url_path:
            docs.api_pages.setdefault(api_key(page.title), set()).add(url_path)
    docs.twins = _twins(docs.pages)
    if catalog is not None:
        _add_catalog(docs, catalog)
    docs.hubness = _hubness(texts, docs.api_pages)
    return docs


def _add_catalog(docs: DocsMap, catalog: "ApiCatalog") -> None:
    """The names code uses for each API page, and the old names the docs retire."""
    for url_path, api in catalog.apis.items():
        if url_path not in docs.pages:
            continue
        for name in (*api.names, *(symbol.name for symbol in api.symbols)):
            for key in _keys(name):
                docs.api_pages.setdefault(key, set()).add(url_path)
    for deprecation in catalog.deprecations:
        new = deprecation.replacement_page
        if new is None or new not in docs.pages:
            continue
        pages = {new, *([docs.twins[new]] if new in docs.twins else [])}
        for key in _keys(deprecation.symbol.name):
            docs.renamed.setdefault(key, set()).update(pages)


def _keys(name: str) -> list[str]:
    """``experimental.ppr`` is named both that way and ``ppr``; other names one way."""
    key = api_key(name)
    if not key:
        return []
    short = key.rsplit(".", 1)[-1] if key.startswith("experimental.") else key
    return list(dict.fromkeys([key, short]))


def _hubness(texts: Mapping[str, list[str]], api_pages: Mapping[str, set[str]]) -> dict[str, float]:
    names = {name for name in api_pages if len(name) >= _HUB_NAME_MIN and " " not in name}
    if not names:
        return {}
    counts = {
        page: len(names & {word.lower() for word in _WORD.findall("\n".join(chunks))})
        for page, chunks in texts.items()
    }
    most = max(counts.values(), default=0)
    return {page: count / most for page, count in counts.items()} if most else {}


def _twins(pages: Mapping[str, PageInfo]) -> dict[str, str]:
    twins: dict[str, str] = {}
    for url_path in pages:
        if url_path.startswith("/docs/app/"):
            other = "/docs/pages/" + url_path.removeprefix("/docs/app/")
            if other in pages:
                twins[url_path], twins[other] = other, url_path
    return twins

"""Which catalog API a position in a source file points at (pure: no pygls, no I/O).

:mod:`raggin_lsp.code.syntax` says how the code names something (an import, a module,
an export, a directive, a config key); the version's :class:`ApiCatalog` says which
reference page documents it. A file is itself a reference when its name is a file
convention the docs describe (``proxy.ts``, ``app/blog/page.tsx``): hovering its first
line or its ``export default`` line shows that page.
"""

import re
from pathlib import PurePosixPath

from raggin_lsp.code.syntax import Reference, SourceFile, Span
from raggin_lsp.corpus.apis import Api, ApiCatalog, Symbol

_CONVENTION_SUFFIXES = (
    ".js",
    ".jsx",
    ".ts",
    ".tsx",
    ".mjs",
    ".cjs",
    ".mts",
    ".txt",
    ".xml",
    ".json",
)
_EXPORT_DEFAULT = re.compile(r"\bexport\s+default\b")


def symbol_of(reference: Reference) -> Symbol:
    if reference.kind == "import":
        return Symbol("import", reference.name, reference.module)
    return Symbol(reference.kind, reference.name)


def file_reference(path: str, line: int, text: str) -> Reference | None:
    """The file itself, when the cursor is on its first or ``export default`` line."""
    file = PurePosixPath(path.replace("\\", "/"))
    if file.suffix not in _CONVENTION_SUFFIXES:
        return None
    lines = text.split("\n")
    current = lines[line] if 0 <= line < len(lines) else ""
    if line != 0 and not _EXPORT_DEFAULT.search(current):
        return None
    return Reference("file", file.name.split(".")[0], Span(line, 0, len(current)))


def _in_folder(path: str, folder: str | None) -> bool:
    """``app``/``pages``: inside such a folder; ``""``: not inside one (a root file);
    unknown: inside one of them (a generic name such as ``route.ts`` elsewhere is not)."""
    parts = set(PurePosixPath(path.replace("\\", "/")).parts[:-1])
    routers = parts & {"app", "pages"}
    if folder in ("app", "pages"):
        return folder in parts
    if folder == "":
        return not routers
    return bool(routers)


def apis_for(
    reference: Reference, catalog: ApiCatalog, path: str, router: str | None = None
) -> list[Api]:
    """Pages documenting ``reference``, the ``router``'s first."""
    if reference.kind == "file":
        found = [
            api
            for api in catalog.apis.values()
            for s in api.symbols
            if s.mode == "file" and s.name == reference.name and _in_folder(path, s.folder)
        ]
    else:
        found = catalog.by_symbol(symbol_of(reference))
        if not found and reference.kind == "import" and reference.module:
            found = catalog.by_symbol(Symbol("module", reference.module))  # a font family...
    if not found:  # an old name: the page that says what replaced it
        deprecation = catalog.deprecation_of(symbol_of(reference))
        if deprecation is not None:
            found = [catalog.apis[deprecation.replacement_page or deprecation.page]]
    if router is not None:
        found.sort(key=lambda api: api.router != router)
    return list(dict.fromkeys(found))


def reference_at(source: SourceFile, line: int, character: int) -> Reference | None:
    return source.reference_at(line, character) or file_reference(
        str(source.path), line, source.text
    )


def api_at(
    catalog: ApiCatalog, text: str, line: int, character: int, path: str, router: str | None
) -> tuple[Reference, Api] | None:
    source = SourceFile(text, path)
    reference = reference_at(source, line, character)
    if reference is None:
        return None
    found = apis_for(reference, catalog, path, router or document_router(source, catalog))
    return (reference, found[0]) if found else None


def document_router(source: SourceFile, catalog: ApiCatalog) -> str | None:
    """The router a file's imports commit it to: the one all its imported APIs share."""
    routers: set[str] = set()
    for ref in source.references:
        if ref.kind == "import":
            pages = catalog.by_symbol(symbol_of(ref))
            shared = {api.router for api in pages}
            if len(shared) == 1:
                routers |= shared
    return routers.pop() if len(routers) == 1 else None

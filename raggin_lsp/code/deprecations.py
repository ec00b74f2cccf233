"""Deprecated, renamed and removed Next.js APIs used in a file, with the edit that fixes
each one when there is a safe one (pure: no pygls, no I/O).

What is deprecated comes from the version's :class:`ApiCatalog` (the docs say it); how
code names an API comes from :mod:`raggin_lsp.code.syntax`. A finding is only made where
the code certainly names the Next.js API, so that nothing else is flagged:

* imports and module specifiers match by module (``Image`` from ``some-ui-kit`` is not
  ``next/image``'s, a local function named ``middleware`` is no file convention);
* config keys only count in a ``next.config`` file, and a key that used to sit under
  ``experimental.`` matches its renamed top-level key (the fix is then left to the user,
  since the key moves);
* exports only count in files of an ``app`` folder (route segment config);
* a file convention only counts for a file at the project root or in ``src/``, and
  only when the docs say where the file lives.

A fix is offered when the replacement is the same kind of name: another name from the
same module, another module specifier, another config key beside it, another export,
or another file name (a rename, which the client must support).
"""

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from raggin_lsp.code.lookup import symbol_of
from raggin_lsp.code.syntax import Reference, SourceFile, Span, is_config_file, is_source_file
from raggin_lsp.corpus.apis import ApiCatalog, Deprecation, Symbol

_EXPERIMENTAL = "experimental."
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")
_ROOT_FOLDERS = ((), ("src",))


@dataclass(frozen=True)
class TextEdit:
    span: Span
    new_text: str


@dataclass(frozen=True)
class Fix:
    """The edits that replace the old name; ``new_file_name`` renames the file itself."""

    title: str
    edits: tuple[TextEdit, ...] = ()
    new_file_name: str | None = None


@dataclass(frozen=True)
class Finding:
    """One use of a deprecated, renamed or removed API, and how to fix it."""

    span: Span
    label: str  # the name as the code writes it
    deprecation: Deprecation
    message: str
    fix: Fix | None = None

    @property
    def code(self) -> str:
        return f"{self.deprecation.status}-api"


def find_deprecations(
    catalog: ApiCatalog, text: str, path: str, relative_path: str | None = None
) -> list[Finding]:
    """The findings of one file; ``relative_path`` (to the project root) enables file
    conventions, which depend on where the file lives."""
    if not catalog.deprecations or not is_source_file(path):
        return []
    source = SourceFile(text, path)
    found: list[Finding] = []
    in_app = relative_path is not None and _in_app_folder(relative_path)
    for reference in source.references:
        if reference.kind == "export" and not in_app:
            continue
        if reference.kind == "file":
            continue
        finding = _finding(catalog, source, reference)
        if finding is not None:
            found.append(finding)
    if relative_path is not None:
        file_finding = _file_finding(catalog, source, relative_path)
        if file_finding is not None:
            found.insert(0, file_finding)
    return found


def _in_app_folder(relative_path: str) -> bool:
    parts = PurePosixPath(relative_path.replace("\\", "/")).parts[:-1]
    return parts[:1] == ("app",) or parts[:2] == ("src", "app")


def _finding(catalog: ApiCatalog, source: SourceFile, reference: Reference) -> Finding | None:
    symbol = symbol_of(reference)
    deprecation = catalog.deprecation_of(symbol)
    moved = False
    if (
        deprecation is None
        and reference.kind == "config"
        and reference.name.startswith(_EXPERIMENTAL)
        and "." not in reference.name[len(_EXPERIMENTAL) :]
    ):
        # The docs name the old key as it was when it left `experimental`.
        deprecation = catalog.deprecation_of(Symbol("config", reference.name[len(_EXPERIMENTAL) :]))
        moved = deprecation is not None
    if deprecation is None:
        return None
    fix = None if moved else _fix(source, reference, deprecation)
    return Finding(
        reference.span, reference.label, deprecation, message(reference.label, deprecation), fix
    )


def _fix(source: SourceFile, reference: Reference, deprecation: Deprecation) -> Fix | None:
    old, new = deprecation.symbol, deprecation.replacement
    if new is None or new.mode != old.mode:
        return None
    title = f"Use `{new.name}` instead of `{reference.label}`"
    if old.mode == "import" and new.module == old.module and _IDENTIFIER.match(new.name):
        if new.name in source.imports():
            return None  # already imported: merging imports is the user's call
        if reference.local != reference.name:  # aliased: only the imported name changes
            return Fix(title, (TextEdit(reference.span, new.name),))
        return Fix(title, _renamed(source, reference.name, new.name))
    if old.mode == "module":
        quoted = reference.span
        inner = Span(quoted.line, quoted.start + 1, quoted.end - 1)
        return Fix(title, (TextEdit(inner, new.name),))
    if old.mode == "config":
        old_parent, _, _ = old.name.rpartition(".")
        new_parent, _, new_key = new.name.rpartition(".")
        if old_parent != new_parent or not _IDENTIFIER.match(new_key):
            return None
        key = source.text.split("\n")[reference.span.line][
            reference.span.start : reference.span.end
        ]
        quote = key[0] if key[:1] in ("'", '"') else ""
        return Fix(title, (TextEdit(reference.span, f"{quote}{new_key}{quote}"),))
    if old.mode == "export" and _IDENTIFIER.match(new.name):
        return Fix(title, _renamed(source, reference.name, new.name))
    return None


def _renamed(source: SourceFile, old: str, new: str) -> tuple[TextEdit, ...]:
    return tuple(TextEdit(span, new) for span in dict.fromkeys(source.identifier_spans(old)))


def _file_finding(catalog: ApiCatalog, source: SourceFile, relative_path: str) -> Finding | None:
    file = PurePosixPath(relative_path.replace("\\", "/"))
    if is_config_file(file.name):
        return None
    stem, _, suffix = file.name.partition(".")
    deprecation = catalog.deprecation_of(Symbol("file", stem))
    if deprecation is None or file.parts[:-1] not in _ROOT_FOLDERS:
        return None
    new = deprecation.replacement
    folder = deprecation.symbol.folder
    if folder is None and new is not None and new.mode == "file":
        folder = new.folder  # the docs place the new name; the old one lived there too
    if folder != "":
        return None  # the docs do not say the file lives at the root
    first_line = source.text.split("\n", 1)[0]
    span = Span(0, 0, len(first_line.encode("utf-16-le")) // 2)
    fix = None
    if new is not None and new.mode == "file" and _IDENTIFIER.match(new.name):
        # The file's export of the same name is renamed with it (`export function proxy`).
        edits = tuple(
            TextEdit(reference.span, new.name)
            for reference in source.references
            if reference.kind == "export" and reference.name == stem
        )
        fix = Fix(f"Rename {file.name} to {new.name}.{suffix}", edits, f"{new.name}.{suffix}")
    return Finding(span, file.name, deprecation, message(file.name, deprecation), fix)


def _shown(symbol: Symbol) -> str:
    if symbol.mode == "import" and symbol.module:
        return f"`{symbol.name}` from `{symbol.module}`"
    if symbol.mode == "directive":
        return f"the `'{symbol.name}'` directive"
    if symbol.mode == "file":
        return f"the `{symbol.name}` file convention"
    if symbol.mode == "config":
        return f"the `{symbol.name}` config key"
    return f"`{symbol.name}`"


def message(label: str, deprecation: Deprecation) -> str:
    """``unstable_cacheLife`` is deprecated: use `cacheLife` from `next/cache` instead."""
    status = {"deprecated": "is deprecated", "renamed": "was renamed", "removed": "was removed"}
    since = f" (since {deprecation.since})" if deprecation.since else ""
    text = f"`{label}` {status[deprecation.status]}{since}"
    new = deprecation.replacement
    if new is None:
        return text + " in the Next.js docs."
    return f"{text}: use {_shown(new)} instead."

"""The ways source code refers to a Next.js API, read with tree-sitter's TSX grammar.

These are the only hand-written rules about Next.js APIs in the project, and they say
nothing about which API exists or where it is documented (the docs say that, see
:mod:`raggin_lsp.corpus.apis`); they say how code can name one:

* an **import** of a name from a module (``import { cookies } from 'next/headers'``,
  ``import Image from 'next/image'``, ``require('next/image')``), and every later use of
  the local name it binds;
* a **module** specifier (the ``'next/image'`` string itself);
* an **export** of a top-level name (``export const revalidate = 60``,
  ``export async function generateMetadata``), which Next.js reads from route files;
* a **directive** (``'use client'`` at the top of a file or a function body);
* a **config** key, the property path of an object in a ``next.config`` file
  (``images.remotePatterns``).

Positions are 0-based lines and UTF-16 columns, as LSP counts them. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

RefKind = Literal["import", "module", "export", "directive", "config", "file"]

SOURCE_SUFFIXES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".md", ".mdx")
_TYPESCRIPT_SUFFIXES = (".ts", ".mts", ".cts")
_MDX_SUFFIXES = (".md", ".mdx")
_CONFIG_FILE = re.compile(r"next\.config\.(js|mjs|cjs|ts|mts)")
_ESM_LINE = re.compile(r"^\s*(import|export)\b")


@dataclass(frozen=True)
class Span:
    """A range on one line: ``line``, then UTF-16 columns ``start`` to ``end``."""

    line: int
    start: int
    end: int

    def contains(self, line: int, character: int) -> bool:
        return self.line == line and self.start <= character <= self.end


@dataclass(frozen=True)
class Reference:
    """One place where code names something Next.js may document.

    ``name`` is the imported name (``default`` and ``*`` for default and namespace
    imports), the module specifier, the exported name, the directive's text or the
    config key path; ``module`` is set for imports.
    """

    kind: RefKind
    name: str
    span: Span
    module: str | None = None
    local: str | None = None  # the name an import binds in this file

    @property
    def label(self) -> str:
        if self.kind == "import" and self.name in ("default", "*"):
            return self.local or str(self.module)
        return self.name


def is_config_file(file_name: str) -> bool:
    return _CONFIG_FILE.fullmatch(file_name) is not None


def is_source_file(path: str) -> bool:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.endswith(SOURCE_SUFFIXES) or is_config_file(name)


@cache
def _parser(typescript: bool) -> Parser:
    # Imported on the first parse, not with this module: the language server imports it
    # on its way to answering `initialize`, which must not wait for the grammars.
    import tree_sitter_typescript
    from tree_sitter import Language, Parser

    grammar = (
        tree_sitter_typescript.language_typescript()
        if typescript
        else tree_sitter_typescript.language_tsx()
    )
    return Parser(Language(grammar))


class SourceFile:
    """One parsed file: its references, and the reference at a position."""

    def __init__(self, text: str, path: str = "file.tsx") -> None:
        self.path = PurePosixPath(path.replace("\\", "/"))
        suffix = self.path.suffix
        if suffix in _MDX_SUFFIXES:  # only the ESM lines of MDX are code
            text = "\n".join(line if _ESM_LINE.match(line) else "" for line in text.split("\n"))
        self.text = text
        self._lines = text.split("\n")
        self._source = text.encode("utf-8")
        self.tree: Tree = _parser(suffix in _TYPESCRIPT_SUFFIXES).parse(self._source)
        self._references: list[Reference] | None = None

    # ------------------------------------------------------------ positions

    def _span(self, node: Node) -> Span:
        row, start = node.start_point
        end_row, end = node.end_point
        if end_row != row:
            end = len(self._lines[row].encode("utf-8")) if row < len(self._lines) else start
        return Span(row, self._utf16(row, start), self._utf16(row, end))

    def _utf16(self, row: int, byte_column: int) -> int:
        line = self._lines[row] if row < len(self._lines) else ""
        if line.isascii():
            return byte_column
        prefix = line.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore")
        return len(prefix.encode("utf-16-le")) // 2

    def _byte_column(self, row: int, character: int) -> int:
        line = self._lines[row] if row < len(self._lines) else ""
        if line.isascii():
            return character
        units = line.encode("utf-16-le")[: 2 * character].decode("utf-16-le", errors="ignore")
        return len(units.encode("utf-8"))

    def _text(self, node: Node) -> str:
        return self._source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    # ----------------------------------------------------------- references

    @property
    def references(self) -> list[Reference]:
        """Imports, module specifiers, exports, directives and (in a next.config file)
        config keys, in document order. Later uses of imported names are not listed
        (see :meth:`reference_at`)."""
        if self._references is None:
            found: list[Reference] = []
            root = self.tree.root_node
            found += self._directives(root)
            for statement in root.named_children:
                if statement.type == "import_statement":
                    found += self._imports(statement)
                elif statement.type == "export_statement":
                    found += self._exports(statement)
                found += self._requires(statement)
            if is_config_file(self.path.name):
                found += self._config_keys(root, ())
            self._references = sorted(found, key=lambda r: (r.span.line, r.span.start))
        return self._references

    def imports(self) -> dict[str, Reference]:
        """Local name -> the import that binds it."""
        return {ref.local: ref for ref in self.references if ref.kind == "import" and ref.local}

    def reference_at(self, line: int, character: int) -> Reference | None:
        """The reference under the cursor, including a use of an imported name."""
        for ref in self.references:
            if ref.span.contains(line, character):
                return ref
        if not 0 <= line < len(self._lines):
            return None
        column = self._byte_column(line, character)
        node = self.tree.root_node.named_descendant_for_point_range((line, column), (line, column))
        if node is None or node.type not in ("identifier", "type_identifier"):
            return None
        binding = self.imports().get(self._text(node))
        if binding is None:
            return None
        return Reference("import", binding.name, self._span(node), binding.module, binding.local)

    def identifier_spans(self, name: str) -> list[Span]:
        """Every place the identifier ``name`` is written (declarations and uses; not
        object keys or member names, which are other names that look the same)."""
        pattern = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
        found = []
        for row, line in enumerate(self._lines):
            for match in pattern.finditer(line):
                column = len(line[: match.start()].encode("utf-8"))
                node = self.tree.root_node.named_descendant_for_point_range(
                    (row, column), (row, column + len(name.encode("utf-8")))
                )
                if node is not None and node.type in ("identifier", "type_identifier"):
                    found.append(self._span(node))
        return found

    def _imports(self, statement: Node) -> list[Reference]:
        source = statement.child_by_field_name("source")
        module = _string_value(self, source)
        if source is None or module is None:
            return []
        found = [Reference("module", module, self._span(source))]
        clause = next((c for c in statement.named_children if c.type == "import_clause"), None)
        for part in clause.named_children if clause is not None else ():
            if part.type == "identifier":
                found.append(self._binding("default", part, part, module))
            elif part.type == "namespace_import":
                local = next((c for c in part.named_children if c.type == "identifier"), None)
                if local is not None:
                    found.append(self._binding("*", local, local, module))
            elif part.type == "named_imports":
                for specifier in part.named_children:
                    name = specifier.child_by_field_name("name")
                    alias = specifier.child_by_field_name("alias") or name
                    if name is not None and alias is not None:
                        found.append(self._binding(self._text(name), name, alias, module))
        return found

    def _binding(self, name: str, at: Node, local: Node, module: str) -> Reference:
        return Reference("import", name, self._span(at), module, self._text(local))

    def _requires(self, statement: Node) -> list[Reference]:
        """``const x = require('next/...')`` at the top level: a default import of ``x``."""
        if statement.type != "lexical_declaration" and statement.type != "variable_declaration":
            return []
        found = []
        for declarator in statement.named_children:
            value = declarator.child_by_field_name("value")
            name = declarator.child_by_field_name("name")
            if value is None or value.type != "call_expression":
                continue
            function = value.child_by_field_name("function")
            arguments = value.child_by_field_name("arguments")
            if function is None or self._text(function) != "require" or arguments is None:
                continue
            source = next((a for a in arguments.named_children if a.type == "string"), None)
            module = _string_value(self, source)
            if source is None or module is None:
                continue
            found.append(Reference("module", module, self._span(source)))
            if name is not None and name.type == "identifier":
                found.append(self._binding("default", name, name, module))
        return found

    def _exports(self, statement: Node) -> list[Reference]:
        declaration = statement.child_by_field_name("declaration")
        names: list[Node] = []
        if declaration is not None:
            if declaration.type in ("lexical_declaration", "variable_declaration"):
                for declarator in declaration.named_children:
                    name = declarator.child_by_field_name("name")
                    if name is not None and name.type == "identifier":
                        names.append(name)
            else:
                name = declaration.child_by_field_name("name")
                if name is not None:
                    names.append(name)
        for clause in (c for c in statement.named_children if c.type == "export_clause"):
            for specifier in clause.named_children:
                exported = specifier.child_by_field_name("alias") or specifier.child_by_field_name(
                    "name"
                )
                if exported is not None:
                    names.append(exported)
        return [Reference("export", self._text(name), self._span(name)) for name in names]

    def _directives(self, root: Node) -> list[Reference]:
        """The directive prologue of the file and of each top-level function's body."""
        bodies = [root]
        for statement in root.named_children:
            target = statement.child_by_field_name("declaration") or statement
            if target.type in ("function_declaration", "generator_function_declaration"):
                body = target.child_by_field_name("body")
                if body is not None:
                    bodies.append(body)
        found = []
        for body in bodies:
            for statement in body.named_children:
                if statement.type == "comment":
                    continue
                string = statement.named_children[0] if statement.named_children else None
                if statement.type != "expression_statement" or string is None:
                    break
                value = _string_value(self, string)
                if string.type != "string" or value is None:
                    break
                found.append(Reference("directive", value, self._span(string)))
        return found

    def _config_keys(self, node: Node, path: tuple[str, ...]) -> list[Reference]:
        found = []
        for child in node.named_children:
            key: Node | None = None
            if child.type == "pair":
                key = child.child_by_field_name("key")
            elif child.type == "method_definition":
                key = child.child_by_field_name("name")
            elif child.type == "shorthand_property_identifier":
                key = child
            name = _key_text(self, key) if key is not None else None
            if key is not None and name is not None and node.type == "object":
                found.append(Reference("config", ".".join((*path, name)), self._span(key)))
                found += self._config_keys(child, (*path, name))
            else:
                found += self._config_keys(child, path)
        return found


def _string_value(source: SourceFile, node: Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    return source._text(node)[1:-1]


def _key_text(source: SourceFile, key: Node) -> str | None:
    if key.type in ("property_identifier", "shorthand_property_identifier"):
        return source._text(key)
    if key.type == "string":
        return _string_value(source, key)
    return None

"""How source code refers to Next.js APIs, read with tree-sitter: a table of snippets."""

import pytest

from raggin_lsp.code.syntax import Reference, SourceFile, Span

APP = """'use client'
import Image, { useRouter as useNav } from 'next/navigation'
import * as cache from "next/cache"
const legacy = require('next/legacy/image')
export const dynamic = 'force-dynamic', revalidate = 60
export async function generateMetadata() {
  'use cache'
  return useNav()
}
"""


def test_references_in_document_order() -> None:
    refs = [(r.kind, r.name, r.module, r.local) for r in SourceFile(APP, "app/page.tsx").references]
    assert refs == [
        ("directive", "use client", None, None),
        ("import", "default", "next/navigation", "Image"),
        ("import", "useRouter", "next/navigation", "useNav"),
        ("module", "next/navigation", None, None),
        ("import", "*", "next/cache", "cache"),
        ("module", "next/cache", None, None),
        ("import", "default", "next/legacy/image", "legacy"),
        ("module", "next/legacy/image", None, None),
        ("export", "dynamic", None, None),
        ("export", "revalidate", None, None),
        ("export", "generateMetadata", None, None),
        ("directive", "use cache", None, None),
    ]


@pytest.mark.parametrize(
    ("line", "character", "expected"),
    [
        pytest.param(7, 10, ("import", "useRouter", "next/navigation"), id="use-of-an-alias"),
        pytest.param(1, 50, ("module", "next/navigation", None), id="module-string"),
        pytest.param(0, 3, ("directive", "use client", None), id="directive"),
        pytest.param(4, 15, ("export", "dynamic", None), id="export"),
        pytest.param(6, 2, None, id="not-a-directive-position"),
        pytest.param(5, 0, None, id="keyword"),
    ],
)
def test_reference_at(line: int, character: int, expected: tuple[str, str, str | None]) -> None:
    found = SourceFile(APP, "app/page.tsx").reference_at(line, character)
    if expected is None:
        assert found is None or found.kind == "directive"
    else:
        assert found is not None
        assert (found.kind, found.name, found.module) == expected


def test_config_keys_are_property_paths_only_in_next_config() -> None:
    text = (
        "const nextConfig = {\n  basePath: '/docs',\n  experimental: { staleTimes: {} },\n"
        "  async redirects() { return [] },\n}\nexport default nextConfig\n"
    )
    keys = [r.name for r in SourceFile(text, "next.config.mjs").references if r.kind == "config"]
    assert keys == ["basePath", "experimental", "experimental.staleTimes", "redirects"]
    assert not [r for r in SourceFile(text, "lib/config.mjs").references if r.kind == "config"]


def test_columns_are_utf16() -> None:
    source = SourceFile("const é = '😀'; import { cookies } from 'next/headers'\n", "a.ts")
    ref = next(r for r in source.references if r.kind == "import")
    assert ref == Reference("import", "cookies", Span(0, 25, 32), "next/headers", "cookies")
    assert source.reference_at(0, 26) is not None


def test_mdx_reads_only_its_import_lines() -> None:
    text = "# Title\n\nimport Image from 'next/image'\n\nSome `code` here.\n"
    refs = SourceFile(text, "page.mdx").references
    assert [(r.kind, r.name) for r in refs] == [("import", "default"), ("module", "next/image")]

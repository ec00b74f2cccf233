"""Which uses of deprecated Next.js APIs a file gets a finding for, and the fixes.

The catalog here is a small stand-in written in the test (the real ones are checked by
tests/integration/test_diagnostics_fixture.py); what matters is how code is matched.
"""

import pytest

from raggin_lsp.code.deprecations import Finding, find_deprecations
from raggin_lsp.code.syntax import Span
from raggin_lsp.corpus.apis import ApiCatalog, Deprecation, Symbol


def _deprecation(old: Symbol, new: Symbol | None, status: str = "deprecated") -> Deprecation:
    return Deprecation(
        symbol=old,
        status=status,  # type: ignore[arg-type]
        since="16.0.0",
        evidence="The docs say so.",
        page="/docs/app/api-reference/x",
        replacement=new,
    )


CATALOG = ApiCatalog(
    "16.4.6",
    deprecations=[
        _deprecation(
            Symbol("import", "unstable_cacheLife", "next/cache"),
            Symbol("import", "cacheLife", "next/cache"),
        ),
        _deprecation(
            Symbol("import", "unstable_noStore", "next/cache"),
            Symbol("import", "connection", "next/server"),
        ),
        _deprecation(Symbol("module", "next/legacy/image"), Symbol("module", "next/image")),
        _deprecation(
            Symbol("config", "skipMiddlewareUrlNormalize"),
            Symbol("config", "skipProxyUrlNormalize"),
            "renamed",
        ),
        _deprecation(Symbol("export", "unstable_instant"), Symbol("export", "instant")),
        _deprecation(Symbol("export", "preferredRegion"), None),
        _deprecation(Symbol("file", "middleware"), Symbol("file", "proxy", folder=""), "renamed"),
        _deprecation(Symbol("import", "oldThing", "next/server"), None, "removed"),
    ],
)


def _find(text: str, relative: str = "app/page.tsx") -> list[Finding]:
    return find_deprecations(CATALOG, text, "/project/" + relative, relative)


def _apply(text: str, finding: Finding) -> str:
    assert finding.fix is not None
    lines = text.split("\n")
    for edit in sorted(finding.fix.edits, key=lambda e: (e.span.line, -e.span.start)):
        line = lines[edit.span.line]
        lines[edit.span.line] = line[: edit.span.start] + edit.new_text + line[edit.span.end :]
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("relative", "text"),
    [
        pytest.param("app/page.tsx", "function middleware() {}\n", id="local-function"),
        pytest.param("lib/middleware.ts", "export function middleware() {}\n", id="not-root"),
        pytest.param("app/page.tsx", "import Image from 'ui-kit/legacy/image'\n", id="other-pkg"),
        pytest.param(
            "app/page.tsx", "import { unstable_cacheLife } from 'my-cache'\n", id="other-module"
        ),
        pytest.param("lib/util.ts", "export const preferredRegion = 'auto'\n", id="not-route"),
        pytest.param("app/page.tsx", "const x = { skipMiddlewareUrlNormalize: 1 }\n", id="cfg"),
        pytest.param("app/page.tsx", "// unstable_cacheLife from next/cache\n", id="comment"),
        pytest.param("app/page.tsx", "import { cacheLife } from 'next/cache'\n", id="new-name"),
    ],
)
def test_code_that_is_not_the_deprecated_api_gets_nothing(relative: str, text: str) -> None:
    assert _find(text, relative) == []


def test_an_import_and_its_uses_are_renamed_together() -> None:
    text = (
        "import { unstable_cacheLife } from 'next/cache'\n"
        "export default function Page() { unstable_cacheLife('hours'); return null }\n"
    )
    [finding] = _find(text)
    assert finding.span == Span(0, 9, 27)
    assert finding.code == "deprecated-api"
    assert "use `cacheLife` from `next/cache` instead" in finding.message
    assert _apply(text, finding) == text.replace("unstable_cacheLife", "cacheLife")
    assert _find(_apply(text, finding)) == []  # the edit clears the diagnostic


def test_an_aliased_import_only_changes_the_imported_name() -> None:
    text = "import { unstable_cacheLife as life } from 'next/cache'\nlife('days')\n"
    [finding] = _find(text)
    assert _apply(text, finding) == text.replace("unstable_cacheLife", "cacheLife")


def test_a_replacement_in_another_module_or_of_another_kind_has_no_fix() -> None:
    [finding] = _find("import { unstable_noStore } from 'next/cache'\n")
    assert finding.fix is None
    assert "`connection` from `next/server`" in finding.message


def test_a_removal_without_replacement_names_none() -> None:
    [finding] = _find("import { oldThing } from 'next/server'\n")
    assert finding.deprecation.status == "removed"
    assert finding.code == "removed-api"
    assert finding.fix is None


def test_a_module_specifier_is_replaced_inside_its_quotes() -> None:
    text = "import Image from 'next/legacy/image'\nconst I = require(\"next/legacy/image\")\n"
    first, second = _find(text)
    assert first.label == "next/legacy/image"
    assert _apply(text, first).split("\n")[0] == "import Image from 'next/image'"
    assert _apply(text, second).split("\n")[1] == 'const I = require("next/image")'


def test_config_keys_count_only_in_next_config_and_keep_their_quotes() -> None:
    text = "export default {\n  'skipMiddlewareUrlNormalize': true,\n}\n"
    [finding] = _find(text, "next.config.mjs")
    assert _apply(text, finding).split("\n")[1] == "  'skipProxyUrlNormalize': true,"


def test_an_old_key_under_experimental_is_found_without_a_fix() -> None:
    text = "module.exports = { experimental: { skipMiddlewareUrlNormalize: true } }\n"
    [finding] = _find(text, "next.config.js")
    assert finding.label == "experimental.skipMiddlewareUrlNormalize"
    assert finding.fix is None


def test_route_segment_exports_count_in_app_files() -> None:
    text = "export const unstable_instant = { prefetch: 'static' }\n"
    [finding] = _find(text, "src/app/blog/page.tsx")
    assert _apply(text, finding) == text.replace("unstable_instant", "instant")
    [region] = _find("export const preferredRegion = 'auto'\n", "app/route.ts")
    assert region.fix is None


def test_a_root_file_convention_is_renamed_with_its_export() -> None:
    text = "import { NextResponse } from 'next/server'\nexport function middleware() {}\n"
    [finding] = _find(text, "src/middleware.ts")
    assert finding.label == "middleware.ts"
    assert finding.span == Span(0, 0, len(text.split("\n")[0]))
    assert finding.fix is not None
    assert finding.fix.new_file_name == "proxy.ts"
    assert _apply(text, finding).split("\n")[1] == "export function proxy() {}"


def test_utf16_columns_and_an_already_imported_replacement() -> None:
    text = "const s = '😀'; import { unstable_cacheLife } from 'next/cache'\n"
    [finding] = _find(text)
    assert finding.span.start == len("const s = '😀'; import { ".encode("utf-16-le")) // 2
    both = "import { unstable_cacheLife, cacheLife } from 'next/cache'\n"
    [found] = _find(both)
    assert found.fix is None  # merging two imports is left to the user

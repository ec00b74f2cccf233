"""Code fence info strings become structured snippets."""

import pytest

from raggin_lsp.corpus.model import CodeSnippet
from raggin_lsp.corpus.render import parse_info


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        pytest.param(
            'tsx filename="app/layout.tsx" switcher highlight={1,3}',
            CodeSnippet("tsx", "x", "app/layout.tsx", True, "1,3"),
            id="full",
        ),
        pytest.param(
            'jsx filename="app/page.js" switcher',
            CodeSnippet("jsx", "x", "app/page.js", True),
            id="js-twin",
        ),
        pytest.param(
            'tsx filename="app/page.tsx" {1}',
            CodeSnippet("tsx", "x", "app/page.tsx", False, "1"),
            id="bare-braces",
        ),
        pytest.param('bash package="pnpm"', CodeSnippet("bash", "x"), id="package-ignored"),
        pytest.param("", CodeSnippet("", "x"), id="no-info"),
        pytest.param(
            'filename="a b.ts"', CodeSnippet("", "x", "a b.ts"), id="no-language-spaced-name"
        ),
    ],
)
def test_parse_info(info: str, expected: CodeSnippet) -> None:
    assert parse_info(info, "x") == expected

"""BM25 sees the words inside code names (camelCase, PascalCase) as well as the names."""

import pytest

from raggin_lsp.embed.identifiers import with_identifier_words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call revalidatePath", "call revalidatePath\nrevalidate Path"),
        (
            "getServerSideProps and NextResponse",
            "getServerSideProps and NextResponse\nget Server Side Props Next Response",
        ),
        ("plain words, next/image and use-cache", "plain words, next/image and use-cache"),
        ("HTML and URL", "HTML and URL"),
    ],
)
def test_code_names_add_their_words(text: str, expected: str) -> None:
    assert with_identifier_words(text) == expected

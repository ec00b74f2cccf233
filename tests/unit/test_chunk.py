"""Long sections are cut at block boundaries into parts that fit the budget."""

from collections.abc import Callable

import pytest

from raggin_lsp.corpus.chunk import Block, estimate_tokens, split_blocks
from raggin_lsp.corpus.model import CodeSnippet
from raggin_lsp.corpus.parse import parse_page


def words(text: str) -> int:
    """A transparent counter: one token per whitespace-separated word."""
    return len(text.split())


def prose(count: int, word: str = "word") -> Block:
    return Block(" ".join([word] * count))


def code(lines: int, switcher: bool = False) -> Block:
    body = "\n".join(f"line{n} = {n}" for n in range(lines)) + "\n"
    snippet = CodeSnippet("ts", body, switcher=switcher)
    return Block(f"```ts\n{body}```", (snippet,))


def _budget_ok(header: str, text: str, limit: int, count: Callable[[str], int]) -> bool:
    return count(f"{header}\n\n{text}") <= limit


def test_short_section_stays_whole() -> None:
    parts = split_blocks("T > H", [prose(5), code(2), prose(5)], 100, words)

    assert len(parts) == 1
    assert len(parts[0].code) == 1


def test_parts_end_at_paragraph_boundaries_and_fit() -> None:
    blocks = [prose(8, "alpha"), prose(8, "beta"), prose(8, "gamma"), prose(8, "delta")]

    parts = split_blocks("T > H", blocks, 20, words)

    assert [part.text for part in parts] == [
        "\n\n".join(blocks[0:2][i].text for i in range(2)),
        "\n\n".join(blocks[2:4][i].text for i in range(2)),
    ]
    assert all(_budget_ok("T > H", part.text, 20, words) for part in parts)


def test_code_block_is_never_cut_even_when_too_big() -> None:
    big = code(40)  # 120 words, far over the budget

    parts = split_blocks("T", [prose(3), big, prose(3)], 20, words)

    assert [part.text for part in parts] == ["word word word", big.text, "word word word"]
    assert parts[1].code == big.code


def test_switcher_pair_stays_together_when_it_fits() -> None:
    ts, js = code(3, switcher=True), code(3, switcher=True)

    parts = split_blocks("T", [prose(12), ts, js], 25, words)

    assert [len(part.code) for part in parts] == [0, 2]


def test_oversized_paragraph_is_cut_at_sentences() -> None:
    paragraph = Block(" ".join(f"Sentence number {n} ends here." for n in range(12)))

    parts = split_blocks("T", [paragraph], 16, words)

    assert len(parts) > 1
    assert all(part.text.endswith(".") for part in parts)
    assert " ".join(part.text for part in parts) == paragraph.text
    assert all(_budget_ok("T", part.text, 16, words) for part in parts)


def test_oversized_table_repeats_its_header() -> None:
    rows = [f"| key{n} | value number {n} |" for n in range(10)]
    table = Block("\n".join(["| Key | Value |", "| --- | --- |", *rows]))

    parts = split_blocks("T", [table], 30, words)

    assert len(parts) > 1
    assert all(part.text.startswith("| Key | Value |\n| --- | --- |\n| key") for part in parts)
    assert [row for part in parts for row in part.text.split("\n")[2:]] == rows


def test_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        split_blocks("T", [prose(1)], 0, words)


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        pytest.param("Hello world", 2, 2, id="two-short-words"),
        pytest.param("internationalization", 3, 5, id="long-word-several-pieces"),
        pytest.param("export const x = { a: 1 }", 8, 12, id="code-punctuation"),
        pytest.param("", 0, 0, id="empty"),
    ],
)
def test_estimate_tokens(text: str, low: int, high: int) -> None:
    assert low <= estimate_tokens(text) <= high


def _long_page(paragraphs: int) -> str:
    body = "\n\n".join(
        f"Paragraph {n} says something useful about caching." for n in range(paragraphs)
    )
    fence = (
        '```tsx filename="app/page.tsx"\n'
        + "\n".join(f"const v{n} = {n}" for n in range(30))
        + "\n```"
    )
    return f"---\ntitle: Long\n---\n\n## Big section\n\n{body}\n\n{fence}\n\n{body}\n"


def test_page_sections_are_split_with_heading_path_and_part_numbers() -> None:
    sections = parse_page(
        _long_page(20), "01-app/long.md", "1.0.0", max_tokens=120, count_tokens=words
    ).sections

    assert len(sections) > 2
    assert [s.part for s in sections] == list(range(len(sections)))
    assert {s.heading_path for s in sections} == {("Long", "Big section")}
    assert {s.anchor for s in sections} == {"big-section"}
    fenced = [s for s in sections if s.code]
    assert len(fenced) == 1
    assert fenced[0].text.count("```") == 2  # the fence is whole, in one part
    for section in sections:
        assert words(section.embedding_text()) <= 120 or section.code


def test_default_budget_uses_the_estimate() -> None:
    sections = parse_page(_long_page(60), "01-app/long.md", "1.0.0", max_tokens=200).sections

    assert len(sections) > 1
    assert all(estimate_tokens(s.embedding_text()) <= 200 for s in sections if not s.code)

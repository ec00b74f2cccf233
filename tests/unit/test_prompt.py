"""Prompt building: structure, numbering, budgets and history (pure, no Ollama)."""

from collections.abc import Sequence
from typing import Any

import pytest

from raggin_lsp.corpus.model import CodeSnippet
from raggin_lsp.generate.budget import estimate_tokens, trim_to_tokens
from raggin_lsp.generate.model import ContextItem, GenerationSettings, Turn
from raggin_lsp.generate.prompt import build_messages, fenced, format_context
from raggin_lsp.retrieve.model import SearchResult

VERSION = "16.2.0"


def result(
    slug: str, heading: tuple[str, ...], text: str, code: tuple[CodeSnippet, ...] = ()
) -> SearchResult:
    url_path = f"/docs/app/api-reference/functions/{slug}"
    return SearchResult(
        url=f"https://nextjs.org{url_path}#usage",
        url_path=url_path,
        anchor="usage",
        version=VERSION,
        title=heading[0],
        heading_path=heading,
        text=text,
        code=code,
        router="app",
        tag="docs",
        score=1.0,
    )


REVALIDATE = result(
    "revalidatePath",
    ("revalidatePath", "Usage"),
    "Purge cached data for a path.\n\n"
    "```ts filename=\"app/actions.ts\"\nrevalidatePath('/blog')\n```",
    (CodeSnippet("ts", "revalidatePath('/blog')", "app/actions.ts"),),
)
REDIRECT = result(
    "redirect",
    ("redirect", "Parameters", "type"),
    "The `type` parameter is `replace` by default.",
    # Code only present as a snippet: the prompt must still carry it.
    (CodeSnippet("tsx", "redirect('/login', RedirectType.push)", "app/page.tsx"),),
)


def messages_for(
    *,
    question: str = "How do I refresh the blog page?",
    results: Sequence[SearchResult] = (REVALIDATE, REDIRECT),
    settings: GenerationSettings | None = None,
    context: Sequence[ContextItem] = (),
    history: Sequence[Turn] = (),
) -> list[dict[str, Any]]:
    return build_messages(
        question,
        results,
        version=VERSION,
        settings=settings or GenerationSettings(),
        context=context,
        history=history,
    )


def test_messages_are_system_history_then_one_user_message() -> None:
    history = [Turn("What is ISR?", "Incremental Static Regeneration [1]."), Turn("And SSG?", "x")]
    messages = messages_for(history=history)

    assert [m["role"] for m in messages] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert messages[1]["content"] == "What is ISR?"
    assert messages[2]["content"] == "Incremental Static Regeneration [1]."


def test_system_prompt_demands_grounding_citations_and_names_the_version() -> None:
    system = messages_for()[0]["content"]

    assert f"Next.js {VERSION}" in system
    assert "[n]" in system
    assert "do not cover it" in system


def test_sources_are_numbered_in_rank_order_with_heading_url_and_code() -> None:
    user = messages_for()[-1]["content"]

    first = user.index("[1] revalidatePath > Usage\nURL: " + REVALIDATE.url)
    second = user.index("[2] redirect > Parameters > type\nURL: " + REDIRECT.url)
    assert first < second
    assert "revalidatePath('/blog')" in user
    assert "redirect('/login', RedirectType.push)" in user
    # Code already in the section text is not repeated.
    assert user.count("revalidatePath('/blog')") == 1
    assert f"Sources from the Next.js {VERSION} docs" in user


def test_question_closes_the_user_message() -> None:
    user = messages_for(question="  Why is my page static?\n")[-1]["content"]

    assert user.endswith("Question: Why is my page static?")


@pytest.mark.parametrize(
    ("turns", "kept"),
    [
        pytest.param(3, ["q2", "q3", "q4"], id="keeps-the-last-three"),
        pytest.param(1, ["q4"], id="keeps-the-last-one"),
        pytest.param(10, ["q0", "q1", "q2", "q3", "q4"], id="fewer-turns-than-allowed"),
        pytest.param(0, [], id="history-off"),
    ],
)
def test_history_keeps_only_the_most_recent_turns(turns: int, kept: list[str]) -> None:
    history = [Turn(f"q{i}", f"a{i}") for i in range(5)]
    settings = GenerationSettings(history_turns=turns)

    messages = messages_for(history=history, settings=settings)

    questions = [m["content"] for m in messages[1:-1] if m["role"] == "user"]
    answers = [m["content"] for m in messages[1:-1] if m["role"] == "assistant"]
    assert questions == kept
    assert answers == [q.replace("q", "a") for q in kept]


def test_attached_file_sits_between_sources_and_question_in_a_fence() -> None:
    item = ContextItem("app/page.tsx", "export default function Page() {}", "tsx")

    user = messages_for(context=[item])[-1]["content"]

    assert user.index("[2] redirect") < user.index("--- app/page.tsx ---") < user.index("Question:")
    assert "```tsx\nexport default function Page() {}\n```" in user
    assert "trimmed" not in user


def test_large_attachment_keeps_its_start_and_says_it_was_trimmed() -> None:
    lines = [f"const line{i} = {i};" for i in range(2000)]
    item = ContextItem("app/big.ts", "\n".join(lines), "ts")
    settings = GenerationSettings(context_tokens=500)

    user = messages_for(context=[item], settings=settings)[-1]["content"]

    attached = user[user.index("--- app/big.ts ---") : user.index("Question:")]
    assert "const line0 = 0;" in attached
    assert "const line1999" not in attached
    assert "[trimmed: only the first" in attached
    assert estimate_tokens(attached) < 500 + 50  # the budget plus the label and note
    # Cut on a line boundary: the last kept line is whole.
    code = attached.split("```ts\n", 1)[1].split("\n```", 1)[0]
    last_code_line = code.splitlines()[-1]
    assert last_code_line.startswith("const line")
    assert last_code_line.endswith(";")


def test_items_share_the_budget_and_late_ones_are_left_out_visibly() -> None:
    first = ContextItem("a.ts", "x" * 4000)
    second = ContextItem("b.ts", "y" * 4000)

    text = format_context([first, second], max_tokens=1000)

    assert "--- a.ts ---\n```\n" + "x" * 4000 + "\n```" in text
    assert "--- b.ts ---\n[left out: over the context budget" in text


@pytest.mark.parametrize(
    ("options", "context_tokens", "expect_trimmed"),
    [
        pytest.param({"num_ctx": 65536}, 4000, False, id="large-window-fits"),
        pytest.param({"num_ctx": 2048}, 4000, True, id="small-window-shrinks-budget"),
        pytest.param({"num_ctx": 2048, "num_predict": 1900}, 4000, True, id="answer-reserve"),
        pytest.param({}, 100, True, id="no-window-uses-context-tokens"),
    ],
)
def test_context_budget_respects_the_model_window(
    options: dict[str, int], context_tokens: int, expect_trimmed: bool
) -> None:
    item = ContextItem("app/page.tsx", "const a = 1;\n" * 800)  # ~2600 tokens
    settings = GenerationSettings(options=options, context_tokens=context_tokens)

    messages = messages_for(context=[item], settings=settings)

    assert ("[trimmed:" in messages[-1]["content"]) is expect_trimmed
    if expect_trimmed and "num_ctx" in options:
        # Still shows the start of the file even when the window is nearly full.
        assert "const a = 1;" in messages[-1]["content"]


def test_no_context_means_no_attachment_section() -> None:
    assert "Attached from" not in messages_for()[-1]["content"]


@pytest.mark.parametrize(
    ("text", "max_tokens", "expected_trimmed"),
    [
        pytest.param("abcd" * 10, 10, False, id="exactly-fits"),
        pytest.param("abcd" * 10 + "e", 10, True, id="one-char-over"),
        pytest.param("", 0, False, id="empty"),
    ],
)
def test_trim_to_tokens(text: str, max_tokens: int, expected_trimmed: bool) -> None:
    kept, trimmed = trim_to_tokens(text, max_tokens)

    assert trimmed is expected_trimmed
    assert text.startswith(kept)
    assert estimate_tokens(kept) <= max(max_tokens, 0)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        pytest.param("", 0, id="empty"),
        pytest.param("abc", 1, id="rounds-up"),
        pytest.param("a" * 400, 100, id="four-chars-per-token"),
    ],
)
def test_estimate_tokens(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_fence_outgrows_backticks_inside_the_code() -> None:
    code = "Some docs:\n```js\nx()\n```"

    block = fenced(code, "md")

    assert block.startswith("````md\n")
    assert block.endswith("\n````")

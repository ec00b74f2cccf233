"""Loading and validating question sets, and version-dependent gold pages."""

from pathlib import Path
from typing import Any

import pytest

from raggin_lsp.errors import RagginError
from raggin_lsp.eval.questions import (
    VersionRange,
    check_against_docs,
    load_questions,
    parse_questions,
    select,
    title_in_question,
)


def entry(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "q1",
        "question": "how do i read a cookie on the server",
        "gold": ["/docs/app/api-reference/functions/cookies#reading"],
        "router": "app",
        "kind": "api",
    }
    base.update(overrides)
    return base


def test_loads_yaml_file_and_ignores_unknown_keys(tmp_path: Path) -> None:
    path = tmp_path / "q.yaml"
    path.write_text(
        "questions:\n"
        "  - id: a\n"
        "    question: how to cache a fetch\n"
        "    gold: [/docs/app/api-reference/functions/fetch]\n"
        "    router: app\n"
        "    kind: api\n"
        "    notes: written by hand\n",
        encoding="utf-8",
    )
    [question] = load_questions(path)
    assert question.id == "a"
    assert question.gold == ("/docs/app/api-reference/functions/fetch",)
    assert question.version is None


def test_accepts_a_bare_list() -> None:
    assert [q.id for q in parse_questions([entry(id="x"), entry(id="y")])] == ["x", "y"]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        pytest.param(entry(gold=[]), "'gold' must be a non-empty list", id="empty-gold"),
        pytest.param(entry(gold=["app/x"]), "starting with /docs", id="gold-not-a-path"),
        pytest.param(entry(router="both"), "'router' must be one of app, pages", id="router"),
        pytest.param(entry(kind="faq"), "'kind' must be one of", id="kind"),
        pytest.param(entry(question="  "), "'question' must be a non-empty", id="blank-question"),
        pytest.param(entry(version="sixteen"), "not a version range", id="bad-version"),
        pytest.param(
            entry(gold_by_version={"16.2": ["/docs/app"]}), "not a version like", id="bad-key"
        ),
        pytest.param(
            entry(gold_by_version={"16.2.0": []}), "gold_by_version.16.2.0", id="empty-version-gold"
        ),
    ],
)
def test_rejects_entries_naming_question_and_problem(bad: dict[str, Any], message: str) -> None:
    with pytest.raises(RagginError, match=message) as info:
        parse_questions([bad], source="set.yaml")
    assert "set.yaml: question 'q1'" in str(info.value)


def test_reports_every_problem_at_once() -> None:
    with pytest.raises(RagginError) as info:
        parse_questions([entry(id="a", kind="faq"), entry(id="b", router="x")])
    assert "question 'a'" in str(info.value)
    assert "question 'b'" in str(info.value)


def test_rejects_duplicate_ids() -> None:
    with pytest.raises(RagginError, match="duplicate id"):
        parse_questions([entry(), entry()])


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("questions: [", id="broken-yaml"),
        pytest.param("questions: []\n", id="empty-list"),
        pytest.param("just text\n", id="not-a-list"),
    ],
)
def test_bad_files_raise_user_errors(tmp_path: Path, content: str) -> None:
    path = tmp_path / "q.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RagginError, match=str(path.name)):
        load_questions(path)


def test_missing_file_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(RagginError, match="not found"):
        load_questions(tmp_path / "nope.yaml")


@pytest.mark.parametrize(
    ("text", "version", "inside"),
    [
        pytest.param(">=16.4.0", "16.4.6", True, id="ge-inside"),
        pytest.param(">=16.4.0", "16.2.0", False, id="ge-outside"),
        pytest.param("16.2.0", "16.2.0", True, id="bare-equals"),
        pytest.param("16.2.0", "16.2.1", False, id="bare-differs"),
        pytest.param(">=16.2.0,<16.4.0", "16.3.9", True, id="range-inside"),
        pytest.param(">=16.2.0,<16.4.0", "16.4.0", False, id="range-upper-excluded"),
        pytest.param(">16.10.0", "16.9.0", False, id="numeric-not-lexical"),
    ],
)
def test_version_range(text: str, version: str, inside: bool) -> None:
    assert VersionRange.parse(text).contains(version) is inside


OLD = ["/docs/app/api-reference/config/next-config-js/viewTransition"]
NEW = ["/docs/app/guides/view-transitions#setup"]


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        pytest.param(None, ("/docs/latest",), id="no-version-uses-gold"),
        pytest.param("16.2.0", tuple(OLD), id="exact-old"),
        pytest.param("16.4.6", tuple(NEW), id="exact-new"),
        pytest.param("16.3.0", tuple(OLD), id="between-uses-older-entry"),
        pytest.param("16.1.0", ("/docs/latest",), id="before-all-entries-uses-gold"),
        pytest.param("17.0.0", tuple(NEW), id="after-all-uses-newest"),
    ],
)
def test_gold_for_version(version: str | None, expected: tuple[str, ...]) -> None:
    [question] = parse_questions(
        [entry(gold=["/docs/latest"], gold_by_version={"16.2.0": OLD, "16.4.6": NEW})]
    )
    assert question.gold_for(version) == expected
    assert question.version_sensitive


def test_select_filters_by_version_and_kind() -> None:
    questions = parse_questions(
        [
            entry(id="all"),
            entry(id="new-only", version=">=16.4.0"),
            entry(id="howto", kind="how-to"),
        ]
    )
    assert [q.id for q in select(questions, "16.2.0")] == ["all", "howto"]
    assert [q.id for q in select(questions, "16.4.6", kinds=["api"])] == ["all", "new-only"]


@pytest.mark.parametrize(
    ("question", "title", "found"),
    [
        pytest.param("How do I use Cookies here", "cookies", True, id="case-insensitive"),
        pytest.param("reading a cookie", "cookies", False, id="singular-is-not-title"),
        pytest.param("server actions in forms", "io", False, id="no-match-inside-words"),
        pytest.param("what does io() do", "io", True, id="short-title-as-word"),
        pytest.param("config for page.js files", "page.js", True, id="dots-literal"),
        pytest.param("config for pagexjs files", "page.js", False, id="dot-not-wildcard"),
    ],
)
def test_title_in_question(question: str, title: str, found: bool) -> None:
    assert title_in_question(question, title) is found


def test_check_against_docs_finds_missing_pages_and_quoted_titles() -> None:
    questions = parse_questions(
        [
            entry(id="ok", question="read a cookie"),
            entry(id="quotes", question="how do cookies work"),
            entry(id="missing", question="x", gold=["/docs/app/nowhere"]),
            entry(id="new", question="y", gold=["/docs/app/new"], version=">=16.4.0"),
            entry(
                id="moved",
                question="z",
                gold=["/docs/app/new"],
                gold_by_version={"16.2.0": ["/docs/app/old"], "16.4.6": ["/docs/app/new"]},
            ),
        ]
    )
    cookies = "/docs/app/api-reference/functions/cookies"
    docs = {
        "16.2.0": {cookies: "cookies", "/docs/app/old": "Old"},
        "16.4.6": {cookies: "cookies", "/docs/app/new": "New"},
    }
    problems = check_against_docs(questions, docs)
    assert problems == [
        f"quotes: question quotes the title 'cookies' of {cookies}",
        "missing: gold page /docs/app/nowhere is not in the 16.2.0 docs",
        "missing: gold page /docs/app/nowhere is not in the 16.4.6 docs",
    ]

"""Custom request params: accepted shapes and messages that name the wrong field."""

from collections import namedtuple
from typing import Any

import pytest

from raggin_lsp.server.params import (
    InlineFile,
    ParamError,
    parse_ask,
    parse_search,
    parse_version,
    plain,
)


def test_ask_with_everything() -> None:
    request = parse_ask(
        {
            "question": "Why?",
            "textDocument": {"uri": "file:///p/app/page.tsx"},
            "range": {"start": {"line": 1, "character": 0}, "end": {"line": 3, "character": 2}},
            "files": ["file:///p/app/layout.tsx", {"name": "notes.md", "text": ""}],
            "history": [{"question": "Q1", "answer": "A1"}],
            "version": " 16.2.0 ",
            "model": "llama3",
            "options": {"temperature": 0.1},
            "workDoneToken": "t1",
            "partialResultToken": 7,
        }
    )
    assert request.uri == "file:///p/app/page.tsx"
    assert request.span is not None
    assert request.span.end.line == 3
    assert request.files == ("file:///p/app/layout.tsx", InlineFile("notes.md", ""))
    assert request.version == "16.2.0"
    assert (request.work_done_token, request.partial_result_token) == ("t1", 7)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        pytest.param([], "params must be an object, got array", id="params-array"),
        pytest.param({}, "question is required (a string)", id="missing-question"),
        pytest.param(
            {"question": 42}, "question must be a string, got number", id="question-number"
        ),
        pytest.param({"question": "  "}, "question must not be empty", id="question-blank"),
        pytest.param(
            {"question": "q", "textDocument": {"url": "x"}},
            "textDocument.uri is required",
            id="document-without-uri",
        ),
        pytest.param(
            {"question": "q", "range": {"start": {"line": 0}}},
            "range.start needs line and character",
            id="range-half",
        ),
        pytest.param(
            {
                "question": "q",
                "range": {"start": {"line": 2, "character": 0}, "end": {"line": 1, "character": 0}},
            },
            "range.end must not come before range.start",
            id="range-backwards",
        ),
        pytest.param(
            {"question": "q", "files": "a.ts"},
            "files must be an array, got string",
            id="files-string",
        ),
        pytest.param(
            {"question": "q", "files": [{"name": "a"}]},
            "files[0].text is required",
            id="inline-without-text",
        ),
        pytest.param(
            {"question": "q", "history": [{"question": "a", "answer": 1}]},
            "history[0].answer must be a string, got number",
            id="history-answer",
        ),
        pytest.param(
            {"question": "q", "workDoneToken": True},
            "workDoneToken must be a string or an integer, got boolean",
            id="token-bool",
        ),
        pytest.param(
            {"question": "q", "options": {"temperature": {}}},
            "options.temperature",
            id="option-object",
        ),
        pytest.param(
            {"question": "q", "router": "edge"}, "router must be one of app, pages", id="router"
        ),
    ],
)
def test_ask_errors_name_the_field(params: Any, message: str) -> None:
    with pytest.raises(
        ParamError,
        match=message.replace("(", r"\(")
        .replace(")", r"\)")
        .replace("[", r"\[")
        .replace("]", r"\]"),
    ):
        parse_ask(params)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        pytest.param({"query": 1}, "query must be a string, got number", id="query-number"),
        pytest.param(
            {"query": "q", "topK": "3"}, "topK must be an integer, got string", id="topk-string"
        ),
        pytest.param({"query": "q", "topK": 500}, "topK must be from 1 to 50", id="topk-range"),
    ],
)
def test_search_errors(params: Any, message: str) -> None:
    with pytest.raises(ParamError, match=message):
        parse_search(params)


def test_pygls_namedtuples_become_json_again() -> None:
    Obj = namedtuple("Obj", ["query", "textDocument"])
    Doc = namedtuple("Doc", ["uri"])
    raw = Obj(query="revalidatePath", textDocument=Doc(uri="file:///a.ts"))
    assert plain(raw) == {"query": "revalidatePath", "textDocument": {"uri": "file:///a.ts"}}
    assert parse_search(raw).uri == "file:///a.ts"


def test_version_may_be_a_bare_string_in_commands() -> None:
    assert parse_version("16.2.0", required=True).version == "16.2.0"
    with pytest.raises(ParamError, match="version is required"):
        parse_version({}, required=True)
    assert parse_version(None, required=False).version is None

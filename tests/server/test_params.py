"""Custom request params: accepted shapes and messages that name the wrong field."""

import re
from pathlib import Path
from typing import Any

import pytest

from raggin_lsp.server.features import create_server
from raggin_lsp.server.params import (
    AskParams,
    IndexParams,
    InlineFile,
    NoParams,
    ParamError,
    SearchParams,
    VersionParams,
)
from raggin_lsp.server.protocol import RagginProtocol

PROTOCOL_DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


@pytest.fixture(scope="module")
def protocol() -> RagginProtocol:
    return create_server().protocol


def test_ask_with_everything(protocol: RagginProtocol) -> None:
    request = protocol.structure_params(
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
        },
        AskParams,
    )
    assert request.uri == "file:///p/app/page.tsx"
    assert request.span is not None
    assert request.span.end.line == 3
    assert request.files == ("file:///p/app/layout.tsx", InlineFile("notes.md", ""))
    assert request.version == "16.2.0"
    assert request.options == {"temperature": 0.1}
    assert (request.work_done_token, request.partial_result_token) == ("t1", 7)


def test_fields_a_later_client_sends_are_ignored(protocol: RagginProtocol) -> None:
    request = protocol.structure_params({"query": "cookies", "rerank": True}, SearchParams)
    assert request.query == "cookies"
    assert protocol.structure_params({"verbose": True}, NoParams) == NoParams()


def test_a_plain_uri_is_accepted_as_text_document(protocol: RagginProtocol) -> None:
    request = protocol.structure_params(
        {"query": "q", "textDocument": "file:///a.ts"}, SearchParams
    )
    assert request.uri == "file:///a.ts"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        pytest.param([], "params must be an object, got array", id="params-array"),
        pytest.param({}, "params.question: required field missing", id="missing-question"),
        pytest.param(
            {"question": 42}, "params.question: must be a string, got number", id="question-number"
        ),
        pytest.param({"question": "  "}, "params.question: must not be empty", id="question-blank"),
        pytest.param(
            {"question": "q", "textDocument": {"url": "x"}},
            "params.textDocument.uri: required field missing",
            id="document-without-uri",
        ),
        pytest.param(
            {"question": "q", "range": {"start": {"line": 0}}},
            "params.range.start.character: required field missing",
            id="range-half",
        ),
        pytest.param(
            {
                "question": "q",
                "range": {"start": {"line": 2, "character": 0}, "end": {"line": 1, "character": 0}},
            },
            "params: range.end must not come before range.start",
            id="range-backwards",
        ),
        pytest.param(
            {"question": "q", "files": "a.ts"},
            "params.files: must be an array, got string",
            id="files-string",
        ),
        pytest.param(
            {"question": "q", "files": [{"name": "a"}]},
            "params.files[0].text: required field missing",
            id="inline-without-text",
        ),
        pytest.param(
            {"question": "q", "history": [{"question": "a", "answer": 1}]},
            "params.history[0].answer: must be a string, got number",
            id="history-answer",
        ),
        pytest.param(
            {"question": "q", "workDoneToken": True},
            "workDoneToken must be a string or an integer, got boolean",
            id="token-bool",
        ),
        pytest.param(
            {"question": "q", "options": {"temperature": {}}},
            "params.options: temperature must be a number",
            id="option-object",
        ),
        pytest.param(
            {"question": "q", "router": "edge"},
            "params.router: must be one of app, pages, got 'edge'",
            id="router",
        ),
    ],
)
def test_ask_errors_name_the_field(protocol: RagginProtocol, params: Any, message: str) -> None:
    with pytest.raises(ParamError) as error:
        protocol.structure_params(params, AskParams)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        pytest.param({"query": 1}, "params.query: must be a string, got number", id="query-number"),
        pytest.param(
            {"query": "q", "topK": "3"},
            "params.topK: must be an integer, got string",
            id="topk-string",
        ),
        pytest.param({"query": "q", "topK": 500}, "params.topK: must be from 1 to 50", id="range"),
    ],
)
def test_search_errors(protocol: RagginProtocol, params: Any, message: str) -> None:
    with pytest.raises(ParamError) as error:
        protocol.structure_params(params, SearchParams)
    assert message in str(error.value)


def test_a_version_is_required_only_where_it_is_the_subject(protocol: RagginProtocol) -> None:
    assert protocol.structure_params({"version": "16.2.0 "}, VersionParams).version == "16.2.0"
    with pytest.raises(ParamError, match=r"params\.version: required field missing"):
        protocol.structure_params({}, VersionParams)
    assert protocol.structure_params(None, IndexParams).version is None


def test_every_custom_request_is_typed_and_documented(protocol: RagginProtocol) -> None:
    documented = re.findall(r"^### `(raggin/\w+)`", PROTOCOL_DOC.read_text(), re.M)
    assert sorted(protocol.custom_types) == sorted(documented)
    assert all(protocol.handles(method) for method in protocol.custom_types)


def test_a_request_without_params_gets_its_defaults(protocol: RagginProtocol) -> None:
    message = protocol.structure_message(
        {"jsonrpc": "2.0", "id": 1, "method": "raggin/status", "params": None}
    )
    assert message.params == NoParams()
    broken = protocol.structure_message({"jsonrpc": "2.0", "id": 2, "method": "raggin/search"})
    assert "params: required field missing" in broken.error.message

"""Questions about what changed between versions: which releases and APIs they mean, the
Version History rows that answer them, and those rows as cited sources of the answer,
with the fake Ollama and without a model.

The catalog is a small stand-in written here (the real one is derived from the docs).
"""

from collections.abc import Iterator

import pytest

from raggin_lsp.changes_asked import asked_changes, changes_for, history_sources
from raggin_lsp.corpus.apis import Api, ApiCatalog, Deprecation, HistoryRow, Symbol
from raggin_lsp.generate import GenerationSettings
from raggin_lsp.generate.answer import answer_question
from raggin_lsp.retrieve.model import SearchResult
from tests.support.fake_ollama import FakeOllama, FakeScript, closed_port_host
from tests.unit.test_generate_answer import RESULTS

VERSION = "16.4.6"
PROXY = "/docs/app/api-reference/file-conventions/proxy"
MIDDLEWARE = "/docs/app/api-reference/file-conventions/middleware"
CATCH_ERROR = "/docs/app/api-reference/functions/catchError"
TURBOPACK = "/docs/app/api-reference/config/next-config-js/turbopack"


def _api(path: str, name: str, kind: str, *rows: tuple[str, str]) -> Api:
    history = tuple(HistoryRow(version, change) for version, change in rows)
    return Api(path, name, kind, "app", names=(name,), history=history)


CATALOG = ApiCatalog(
    VERSION,
    apis={
        api.url_path: api
        for api in [
            _api(PROXY, "proxy.js", "file-conventions", ("v16.0.0", "Middleware is deprecated.")),
            _api(MIDDLEWARE, "middleware.js", "file-conventions"),
            _api(
                CATCH_ERROR,
                "catchError",
                "functions",
                ("v16.2.0", "`unstable_catchError` added."),
                ("v16.3.0", "`catchError` became stable."),
            ),
            _api(TURBOPACK, "turbopack", "next-config", ("16.4.0", "`turbopack.gc` added.")),
        ]
    },
    deprecations=[
        Deprecation(
            symbol=Symbol("file", "middleware"),
            status="renamed",
            since=None,
            evidence="Renamed to proxy.",
            page=MIDDLEWARE,
            replacement=Symbol("file", "proxy", folder=""),
            replacement_page=PROXY,
        )
    ],
)


def _rows(question: str) -> list[tuple[str, str]]:
    asked = asked_changes(question, VERSION)
    assert asked is not None, question
    return [(row.version, row.api) for row in changes_for(CATALOG, asked)]


@pytest.mark.parametrize(
    ("question", "rows"),
    [
        pytest.param("What changed in 16.4?", [("16.4.0", "turbopack")], id="in-a-minor"),
        pytest.param(
            "How do I upgrade from 16.2 to 16.4?",
            [("v16.3.0", "catchError"), ("16.4.0", "turbopack")],
            id="from-to",
        ),
        pytest.param(
            "what's new since v16.2.0",
            [("v16.3.0", "catchError"), ("16.4.0", "turbopack")],
            id="since",
        ),
        pytest.param(
            "what changed in catchError between 16.0 and 16.4",
            [("v16.2.0", "catchError"), ("v16.3.0", "catchError")],
            id="one-api",
        ),
        pytest.param("Is middleware deprecated?", [("v16.0.0", "proxy.js")], id="deprecated"),
        pytest.param("What's new?", [("16.4.0", "turbopack")], id="project-minor"),
        pytest.param("Is fooBar deprecated?", [], id="unknown-api"),
    ],
)
def test_a_changes_question_gets_the_rows_of_the_releases_and_apis_it_names(
    question: str, rows: list[tuple[str, str]]
) -> None:
    assert _rows(question) == rows


@pytest.mark.parametrize(
    "question",
    [
        pytest.param("How do I revalidate the blog page after creating a post?", id="how-to"),
        pytest.param("Why does my page render 1.5 times?", id="number"),
        pytest.param("How do I change the port in 16.2?", id="change-verb"),
    ],
)
def test_other_questions_are_not_about_changes(question: str) -> None:
    assert asked_changes(question, VERSION) is None


def test_rows_become_one_source_per_page_linked_to_its_version_history() -> None:
    asked = asked_changes("How do I upgrade from 16.0 to 16.4?", VERSION)
    assert asked is not None
    sources = history_sources(changes_for(CATALOG, asked), VERSION)
    assert [s.url for s in sources] == [
        f"https://nextjs.org{CATCH_ERROR}#version-history",
        f"https://nextjs.org{TURBOPACK}#version-history",
    ]
    assert "- v16.2.0: `unstable_catchError` added.\n- v16.3.0: `catchError` became stable." in (
        sources[0].text
    )


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


UPGRADE = "How do I upgrade from 16.2 to 16.4?"


def _upgrade_sources() -> list[SearchResult]:
    asked = asked_changes(UPGRADE, VERSION)
    assert asked is not None
    return [*history_sources(changes_for(CATALOG, asked), VERSION), *RESULTS]


async def test_the_model_is_given_the_rows_and_its_answer_cites_them(fake: FakeOllama) -> None:
    fake.script = FakeScript(reply="`catchError` became stable in 16.3 [1]; see also [3].")
    sources = _upgrade_sources()
    answer = await answer_question(
        UPGRADE, sources, version=VERSION, settings=GenerationSettings(host=fake.host)
    )
    prompt = fake.chat_requests[-1]["messages"][-1]["content"]
    assert "[1] catchError > Version History" in prompt
    assert "- v16.3.0: `catchError` became stable." in prompt
    assert "[2] turbopack > Version History" in prompt
    assert [c.url for c in answer.citations] == [
        f"https://nextjs.org{CATCH_ERROR}#version-history",
        RESULTS[0].url,
    ]
    assert f"https://nextjs.org{CATCH_ERROR}#version-history" in answer.text


async def test_without_a_model_the_answer_shows_every_row_and_cites_its_page() -> None:
    sources = _upgrade_sources()
    answer = await answer_question(
        UPGRADE, sources, version=VERSION, settings=GenerationSettings(host=closed_port_host())
    )
    assert not answer.used_llm
    assert "- v16.3.0: `catchError` became stable." in answer.generated
    assert "- 16.4.0: `turbopack.gc` added." in answer.generated
    cited = [c.url for c in answer.citations]
    assert cited[:2] == [
        f"https://nextjs.org{CATCH_ERROR}#version-history",
        f"https://nextjs.org{TURBOPACK}#version-history",
    ]
    assert len(cited) == 2 + 3, "the rows do not take the place of the quoted sections"

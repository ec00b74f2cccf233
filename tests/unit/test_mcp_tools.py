"""The MCP tools' own logic, without the SDK and without a model: which version a call is
about, the errors an agent reads, page addresses, pages rebuilt from stored sections, and
index progress reported as 0-100."""

import json
import shutil
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from raggin_lsp.assistant import IndexStage
from raggin_lsp.content_changes import ContentChanges, NotCompared, PageChange
from raggin_lsp.corpus.apis import Api, ApiCatalog, Deprecation, HistoryRow, Symbol
from raggin_lsp.corpus.model import Section
from raggin_lsp.corpus.summary import page_summaries
from raggin_lsp.corpus.versions import Catalog, Release
from raggin_lsp.errors import NotIndexedError, RagginError, UnknownVersionError
from raggin_lsp.mcp.tools import DocsTools, page_uri, parse_page_uri
from raggin_lsp.retrieve.pages import pages_from_payloads, url_path_of
from raggin_lsp.settings import Settings
from raggin_lsp.store.model import IndexReport
from raggin_lsp.store.schema import section_payload

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "nextjs-project"
RELEASES = ("16.1.0", "16.2.0", "16.4.6")


@dataclass
class FakeAssistant:
    """The Assistant's surface the tools use: a catalog, indexed versions, recorded calls."""

    indexed: list[str] = field(default_factory=lambda: ["16.2.0"])
    lexical: list[str] = field(default_factory=list)  # searchable, dense vectors to come
    searches: list[dict[str, Any]] = field(default_factory=list)
    content_scopes: list[Collection[str] | None] = field(default_factory=list)

    def load(self) -> None:
        pass

    def warm_up(self) -> None:
        pass

    def close(self) -> None:
        pass

    def catalog(self) -> Catalog:
        return Catalog(tuple(Release(v, "npm-bundled") for v in RELEASES), latest=RELEASES[-1])

    def indexed_versions(self) -> list[str]:
        return list(self.indexed)

    def index_stages(self) -> dict[str, str]:
        lexical = dict.fromkeys(self.lexical, "lexical only, dense 40%")
        return {**dict.fromkeys(self.indexed, "hybrid"), **lexical}

    def index_stage(self, version: str) -> str:
        return self.index_stages().get(version, "not indexed")

    def resolve_version(self, spec: str) -> str:
        return spec if spec in self.indexed else self.catalog().resolve(spec)

    def api_catalog(self, version: str) -> ApiCatalog:
        return api_catalog(version)

    def content_changes(
        self, since: str, until: str, pages: Collection[str] | None = None
    ) -> ContentChanges | NotCompared:
        """One changed page when both versions are indexed, recording the scope asked."""
        self.content_scopes.append(pages)
        missing = tuple(version for version in (since, until) if version not in self.indexed)
        if missing:
            commands = tuple(f"raggin-lsp index {version}" for version in missing)
            return NotCompared(since, until, missing, commands)
        return ContentChanges(since, until, (PageChange(PROXY, "proxy.js", "changed", PROXY),), 3)

    def search(self, query: str, version: str, **options: Any) -> list[Any]:
        self.searches.append({"query": query, "version": version, **options})
        return []

    def index(self, version: str, *, progress: Any, **_: Any) -> IndexReport:
        progress(IndexStage("fetch", 0, None, f"Getting the Next.js {version} docs"))
        progress(IndexStage("embed", 10, 10, "Indexing: 10/10 sections"))
        self.indexed.append(version)
        return IndexReport(version, 10, 10, 0, 1.0)


PROXY = "/docs/app/api-reference/file-conventions/proxy"


def api_catalog(version: str) -> ApiCatalog:
    """A small catalog as the docs of ``version`` would give it: one file convention."""
    proxy = Api(
        url_path=PROXY,
        title="proxy.js",
        kind="file-conventions",
        router="app",
        description="API reference for the proxy.js file.",
        names=("proxy",),
        symbols=(Symbol("file", "proxy", folder=""),),
        history=(
            HistoryRow("v16.0.0", "Middleware is deprecated and renamed to Proxy"),
            HistoryRow("v15.5.0", "Middleware can now use the Node.js runtime (stable)"),
        ),
    )
    renamed = Deprecation(
        symbol=Symbol("file", "middleware", folder=""),
        status="renamed",
        since="v16.0.0",
        evidence="Middleware is deprecated and renamed to Proxy",
        page=PROXY,
        replacement=Symbol("file", "proxy", folder=""),
        replacement_page=PROXY,
    )
    return ApiCatalog(version, {PROXY: proxy}, [renamed])


def tools_for(assistant: FakeAssistant, project: Path, **settings: Any) -> DocsTools:
    return DocsTools(Settings(**settings), project, assistant_factory=lambda _: assistant)  # type: ignore[arg-type, return-value]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The fixture project (next 16.2.0 installed, App Router)."""
    return Path(shutil.copytree(FIXTURE, tmp_path / "app"))


async def test_search_defaults_to_the_projects_version_and_router(project: Path) -> None:
    assistant = FakeAssistant()
    found = await tools_for(assistant, project, profile="light").search_docs("revalidatePath")
    assert (found["version"], found["router"]) == ("16.2.0", "app")
    assert found["versionReason"] == "project (installed), app router"
    assert assistant.searches[0]["version"] == "16.2.0"
    assert (found["profile"], found["indexStage"]) == ("light", "hybrid")


async def test_list_versions_says_how_each_version_is_searched(project: Path) -> None:
    tools = tools_for(FakeAssistant(lexical=["16.4.6"]), project, profile="light")
    found = await tools.list_versions()
    assert found["indexed"] == ["16.2.0"]
    assert found["stages"] == [
        {"version": "16.2.0", "stage": "hybrid"},
        {"version": "16.4.6", "stage": "lexical only, dense 40%"},
    ]


async def test_project_path_argument_wins_over_the_server_folder(
    project: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    found = await tools_for(FakeAssistant(), elsewhere).search_docs("x", project_path=str(project))
    assert found["versionReason"].startswith("project (installed)")


async def test_outside_a_project_the_newest_indexed_version_is_used_and_said(
    tmp_path: Path,
) -> None:
    found = await tools_for(FakeAssistant(indexed=["16.1.0", "16.2.0"]), tmp_path).search_docs("x")
    assert (found["version"], found["versionReason"]) == ("16.2.0", "newest indexed")


async def test_a_project_whose_version_is_unknown_never_gets_another_one(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"dependencies": {"next": "^99.0.0"}}))
    with pytest.raises(RagginError, match=r'No Next\.js version is known.*"\^99\.0\.0"'):
        await tools_for(FakeAssistant(), tmp_path).search_docs("x")


@pytest.mark.parametrize(
    ("version", "error", "message"),
    [
        pytest.param(
            "99.0.0", UnknownVersionError, r"Next\.js 99\.0\.0 is not a release", id="unknown"
        ),
        pytest.param(
            "16.4.6",
            NotIndexedError,
            r"The Next\.js 16\.4\.6 docs are not indexed yet\. Index them with "
            r"`raggin-lsp index 16\.4\.6 --profile light` or call the index_version tool\.",
            id="not-indexed",
        ),
    ],
)
async def test_a_version_that_cannot_be_searched_is_named_with_what_to_do(
    project: Path, version: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        await tools_for(FakeAssistant(), project, profile="light").search_docs("x", version)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param({"query": "  "}, "query is empty", id="empty-query"),
        pytest.param({"query": "x", "top_k": 0}, "top_k must be from 1 to 50", id="top-k"),
        pytest.param({"query": "x", "router": "both"}, 'router must be "app"', id="router"),
        pytest.param({"query": "x", "project_path": "/nope"}, "does not exist", id="project"),
    ],
)
async def test_bad_arguments_are_refused_with_the_field_named(
    project: Path, arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(RagginError, match=message):
        await tools_for(FakeAssistant(), project).search_docs(**arguments)


async def test_index_version_reports_progress_from_0_to_100(project: Path) -> None:
    assistant = FakeAssistant()
    reports: list[tuple[float, float, str]] = []

    async def progress(done: float, total: float, message: str) -> None:
        reports.append((done, total, message))

    result = await tools_for(assistant, project).index_version("16.4.6", progress)
    assert result["indexed"] == ["16.2.0", "16.4.6"]
    assert reports[0] == (0, 100, "Getting the Next.js 16.4.6 docs")
    assert reports[-1] == (100, 100, "Next.js 16.4.6 docs indexed")
    assert [done for done, _, _ in reports] == sorted(done for done, _, _ in reports)


@pytest.mark.parametrize(
    ("address", "url_path"),
    [
        pytest.param(
            "https://nextjs.org/docs/app/api-reference/functions/revalidatePath#usage",
            "/docs/app/api-reference/functions/revalidatePath",
            id="site-url",
        ),
        pytest.param("https://nextjs.org/docs/15/app/guides", "/docs/app/guides", id="old-major"),
        pytest.param("/docs/pages/api-reference", "/docs/pages/api-reference", id="site-path"),
        pytest.param("app/guides/", "/docs/app/guides", id="bare-path"),
        pytest.param("01-app/02-guides/01-widgets.mdx", "/docs/app/guides/widgets", id="docs-file"),
    ],
)
def test_url_path_of_accepts_every_way_an_agent_names_a_page(address: str, url_path: str) -> None:
    assert url_path_of(address) == url_path


def test_page_uri_round_trips() -> None:
    uri = page_uri("16.2.0", "/docs/app/api-reference/functions/revalidatePath")
    assert uri == "raggin://16.2.0/docs/app/api-reference/functions/revalidatePath"
    assert parse_page_uri(uri) == ("16.2.0", "/docs/app/api-reference/functions/revalidatePath")
    assert parse_page_uri("https://nextjs.org/docs") is None


def test_a_page_reads_in_document_order_whatever_order_the_store_gives() -> None:
    def section(anchor: str, *headings: str, text: str = "", part: int = 0) -> Section:
        return Section(
            version="16.2.0",
            source_path="01-app/x.md",
            url_path="/docs/app/x",
            anchor=anchor,
            heading_path=("X", *headings),
            text=text or f"About {anchor or 'x'}.",
            part=part,
            description="The x page.",
        )

    sections = [
        section(""),
        section("usage", "Usage"),
        section("examples", "Examples"),
        section("basic", "Examples", "Basic", text="First part."),
        section("basic", "Examples", "Basic", text="Second part.", part=1),
        section("returns", "Returns"),
    ]
    stored = [*sections, *page_summaries(sections)]
    payloads = [section_payload(s, ["16.2.0"]) for s in reversed(stored)]

    page = pages_from_payloads("16.2.0", payloads)["/docs/app/x"]

    assert page.headings == ["Usage", "Examples", "Examples > Basic", "Returns"]
    assert page.markdown() == (
        "# X\n\n> The x page.\n\nAbout x.\n\n## Usage\n\nAbout usage.\n\n"
        "## Examples\n\nAbout examples.\n\n### Basic\n\nFirst part.\n\nSecond part.\n\n"
        "## Returns\n\nAbout returns.\n"
    )


async def test_api_info_reads_the_projects_catalog_by_the_name_code_uses(project: Path) -> None:
    info = await tools_for(FakeAssistant(), project).api_info("proxy.ts")
    assert (info["version"], info["versionReason"]) == ("16.2.0", "project (installed)")
    (api,) = info["apis"]
    assert api["resource"] == f"raggin://16.2.0{PROXY}"
    assert api["filePattern"] == "proxy.*"
    assert api["deprecations"][0]["replacement"] == "proxy"


async def test_api_info_works_for_a_version_that_is_not_indexed(project: Path) -> None:
    info = await tools_for(FakeAssistant(), project).api_info("proxy", version="16.4.6")
    assert info["version"] == "16.4.6"


async def test_api_info_names_what_it_did_not_find(project: Path) -> None:
    tools = tools_for(FakeAssistant(), project)
    with pytest.raises(RagginError, match="No API named 'useTelepathy'"):
        await tools.api_info("useTelepathy")
    with pytest.raises(RagginError, match="name is empty"):
        await tools.api_info("  ")


async def test_diff_lists_the_history_rows_after_the_older_release(project: Path) -> None:
    tools = tools_for(FakeAssistant(), project)
    changes = await tools.diff("15.5.0")
    assert [row["version"] for row in changes["changes"]] == ["v16.0.0"]
    assert (changes["from"], changes["to"]) == ("15.5.0", "16.2.0")
    assert len((await tools.diff("15.0.0", api="middleware.ts"))["changes"]) == 0
    with pytest.raises(RagginError, match="since must be a release"):
        await tools.diff("yesterday")


async def test_diff_compares_the_content_when_both_versions_are_indexed(project: Path) -> None:
    assistant = FakeAssistant(indexed=["16.1.0", "16.2.0"])
    tools = tools_for(assistant, project)
    content = (await tools.diff("16.1.0", api="proxy"))["content"]
    assert (content["compared"], content["pagesChanged"], content["pagesUnchanged"]) == (True, 1, 3)
    assert content["pages"][0]["page"] == PROXY
    assert assistant.content_scopes == [{PROXY}]  # the API's page only
    missing = (await tools_for(FakeAssistant(), project).diff("15.5.0"))["content"]
    assert (missing["compared"], missing["missing"]) == (False, ["15.5.0"])
    assert "needs both 15.5.0 and 16.2.0 indexed" in missing["message"]

"""End to end over stdio: ``python -m raggin_lsp mcp`` in the fixture project (next 16.2.0
installed), driven by the MCP SDK's own stdio client, on the real 16.2.0 light index.

The index is shared by the session (``RAGGIN_TEST_INDEX_DIR`` when set, else the
``light_index_dir`` fixture of tests/conftest.py) and only read, except by the
``index_version`` test, which works on a private copy. With ``RAGGIN_MCP_TRANSCRIPT`` set,
the session's tool list, first search result and error texts are written to that file.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent, TextResourceContents

from tests.server.harness import copy_fixture

pytestmark = [pytest.mark.slow]

VERSION = "16.2.0"
TOOLS = ["search_docs", "get_page", "list_versions", "index_version", "api_info", "diff"]
PAGE = "/docs/app/api-reference/functions/revalidatePath"


@pytest.fixture(scope="session")
def index_dir(request: pytest.FixtureRequest) -> Path:
    shared = os.environ.get("RAGGIN_TEST_INDEX_DIR")
    return Path(shared) if shared else Path(request.getfixturevalue("light_index_dir"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path)


def server_parameters(tmp_path: Path, project: Path, index_dir: Path) -> StdioServerParameters:
    env = {
        "RAGGIN_CONFIG_FILE": str(tmp_path / "no-user-config.yaml"),
        "RAGGIN_DATA_DIR": str(tmp_path / "data"),
        "RAGGIN_CACHE_DIR": os.environ.get(
            "RAGGIN_CACHE_DIR", str(Path.home() / ".cache" / "raggin")
        ),
    }
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "raggin_lsp", "mcp", "--profile", "light", "--qdrant-path", str(index_dir)],
        cwd=project,
        env=env,
    )


@asynccontextmanager
async def session(tmp_path: Path, project: Path, index_dir: Path) -> AsyncIterator[ClientSession]:
    parameters = server_parameters(tmp_path, project, index_dir)
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client


def text_of(result: CallToolResult) -> str:
    parts = [part.text for part in result.content if isinstance(part, TextContent)]
    assert parts, result
    return "\n".join(parts)


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return result.structured_content


class Transcript:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, title: str, value: object) -> None:
        text = value if isinstance(value, str) else json.dumps(value, indent=2)
        self.lines += [f"## {title}", text, ""]

    def save(self) -> None:
        target = os.environ.get("RAGGIN_MCP_TRANSCRIPT")
        if target:
            Path(target).write_text("\n".join(self.lines), encoding="utf-8")


async def test_an_agent_searches_reads_and_is_told_what_to_run(
    tmp_path: Path, project: Path, index_dir: Path
) -> None:
    transcript = Transcript()
    async with session(tmp_path, project, index_dir) as client:
        tools = (await client.list_tools()).tools
        names = [tool.name for tool in tools]
        transcript.add("tools/list", names)
        assert names == TOOLS  # no ask: Ollama is not configured
        for tool in tools:
            assert tool.description, tool.name
            assert tool.input_schema["type"] == "object"

        # From the project folder: its installed version and router, unasked.
        found = structured(
            await client.call_tool("search_docs", {"query": "revalidate a path after an action"})
        )
        assert (found["version"], found["router"]) == (VERSION, "app")
        assert found["versionReason"] == "project (installed), app router"
        first = found["results"][0]
        transcript.add(
            "search_docs (first result)",
            {**first, "text": first["text"][:160] + " ..."},
        )
        assert {result["version"] for result in found["results"]} == {VERSION}
        assert all(r["resource"].startswith(f"raggin://{VERSION}/docs/") for r in found["results"])
        assert all(r["url"].startswith("https://nextjs.org/docs/") for r in found["results"])
        assert PAGE in [
            result["resource"].removeprefix(f"raggin://{VERSION}") for result in found["results"]
        ]

        page = structured(
            await client.call_tool("get_page", {"url_or_path": f"https://nextjs.org{PAGE}#usage"})
        )
        assert (page["version"], page["title"]) == (VERSION, "revalidatePath")
        assert page["markdown"].startswith("# revalidatePath\n")
        assert "Usage" in page["sections"]
        for heading in ("Usage", "Parameters"):
            assert f"\n## {heading}\n" in page["markdown"]

        versions = structured(await client.call_tool("list_versions", {}))
        assert versions["indexed"] == [VERSION]
        assert versions["projectVersion"] == VERSION
        assert "16.4.6" in versions["available"]

        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["raggin://{version}/{+path}"]
        listed = [str(resource.uri) for resource in (await client.list_resources()).resources]
        assert f"raggin://{VERSION}{PAGE}" in listed
        contents = (await client.read_resource(f"raggin://{VERSION}{PAGE}")).contents
        assert isinstance(contents[0], TextResourceContents)
        assert contents[0].text == page["markdown"]
        transcript.add("resources/read", contents[0].text[:200] + " ...")

        unknown = await client.call_tool("search_docs", {"query": "proxy", "version": "99.0.0"})
        assert unknown.is_error
        assert "Next.js 99.0.0 is not a release; nearest: " in text_of(unknown)
        transcript.add("search_docs version 99.0.0 (isError)", text_of(unknown))

        missing = await client.call_tool("get_page", {"url_or_path": PAGE, "version": "16.4.6"})
        assert missing.is_error
        assert (
            "The Next.js 16.4.6 docs are not indexed yet. Index them with "
            "`raggin-lsp index 16.4.6 --profile light` or call the index_version tool."
        ) in text_of(missing)
        transcript.add("get_page version 16.4.6 (isError)", text_of(missing))

        nowhere = await client.call_tool("get_page", {"url_or_path": "/docs/app/no-such-page"})
        assert nowhere.is_error
        assert "The Next.js 16.2.0 docs have no page /docs/app/no-such-page" in text_of(nowhere)

        # The API catalog of the project's version: no search, the docs' own reference.
        info = structured(await client.call_tool("api_info", {"name": "revalidatePath()"}))
        assert info["version"] == VERSION
        (api,) = info["apis"]
        assert (api["kind"], api["resource"]) == ("functions", f"raggin://{VERSION}{PAGE}")
        assert api["importPath"] == "next/cache"
        transcript.add("api_info revalidatePath()", {**api, "history": api["history"][:2]})
        changes = structured(await client.call_tool("diff", {"since": "15.0.0"}))
        assert changes["to"] == VERSION
        assert changes["changes"]
        assert all(row["version"].lstrip("v") > "15" for row in changes["changes"])
        unknown_api = await client.call_tool("api_info", {"name": "noSuchApi"})
        assert unknown_api.is_error
        assert "No API named 'noSuchApi'" in text_of(unknown_api)
    transcript.save()


async def test_index_version_reports_progress_notifications(
    tmp_path: Path, project: Path, writable_light_index: Path
) -> None:
    reports: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total, message))

    async with session(tmp_path, project, writable_light_index) as client:
        # Already indexed: every section is found stored, so nothing is embedded again.
        result = await client.call_tool(
            "index_version", {"version": VERSION}, progress_callback=on_progress
        )
        report = structured(result)
    assert (report["version"], report["embedded"]) == (VERSION, 0)
    assert reports, "no progress notification arrived"
    assert reports[-1] == (100, 100, f"Next.js {VERSION} docs indexed")
    assert [progress for progress, _, _ in reports] == sorted(p for p, _, _ in reports)

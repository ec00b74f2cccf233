"""The agent set-ups in editors/agents/ agree with the MCP server: each file parses, its
command starts ``raggin-lsp mcp`` (driven here by the MCP SDK's stdio client), and the
tools the README names are exactly the server's."""

import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.editors.conftest import ROOT
from tests.server.harness import copy_fixture

AGENTS = ROOT / "editors" / "agents"
README = AGENTS / "README.md"
# The file of each agent, and where its servers sit in it.
CONFIGS = [
    pytest.param(AGENTS / "claude-code" / ".mcp.json", "mcpServers", id="claude-code"),
    pytest.param(AGENTS / "cursor" / ".cursor" / "mcp.json", "mcpServers", id="cursor"),
    pytest.param(AGENTS / "vscode" / ".vscode" / "mcp.json", "servers", id="vscode"),
    pytest.param(AGENTS / "zed" / "settings.json", "context_servers", id="zed"),
]
# What the editors put in place of their variables, and the Zed placeholder.
PROJECT_PLACEHOLDERS = ("${workspaceFolder}", "/path/to/your/nextjs-app")


def server_entry(path: Path, key: str) -> dict[str, Any]:
    servers = json.loads(path.read_text(encoding="utf-8"))[key]
    assert list(servers) == ["raggin"]
    entry: dict[str, Any] = servers["raggin"]
    return entry


def readme_tools() -> list[str]:
    """The tool names in the README's tools table."""
    table = README.read_text(encoding="utf-8").split("## Tools", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", table, flags=re.MULTILINE)


def environment(tmp_path: Path) -> dict[str, str]:
    """PATH as an editor started from the activated environment sees it, and private data."""
    return {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "RAGGIN_CONFIG_FILE": str(tmp_path / "no-user-config.yaml"),
        "RAGGIN_DATA_DIR": str(tmp_path / "data"),
        "RAGGIN_CACHE_DIR": os.environ.get(
            "RAGGIN_CACHE_DIR", str(Path.home() / ".cache" / "raggin")
        ),
    }


async def tool_names(command: str, args: list[str], cwd: Path, env: dict[str, str]) -> list[str]:
    executable = shutil.which(command, path=env["PATH"])
    assert executable is not None, f"{command} is not on PATH (pip install -e . first)"
    parameters = StdioServerParameters(command=executable, args=args, cwd=cwd, env=env)
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        return [tool.name for tool in (await client.list_tools()).tools]


@pytest.mark.parametrize(("path", "key"), CONFIGS)
async def test_each_config_starts_the_mcp_server(path: Path, key: str, tmp_path: Path) -> None:
    entry = server_entry(path, key)
    assert entry.get("type", "stdio") == "stdio"
    assert entry["command"] == "raggin-lsp"
    assert entry["args"][:1] == ["mcp"]
    project = copy_fixture(tmp_path)
    args = [str(project) if arg in PROJECT_PLACEHOLDERS else arg for arg in entry["args"]]
    # The small offline model, so that starting does not wait for a download.
    args += ["--profile", "light"]
    names = await tool_names(entry["command"], args, project, environment(tmp_path))
    assert names == [name for name in readme_tools() if name != "ask"]


async def test_the_readme_names_every_tool_and_ask_comes_with_ollama(tmp_path: Path) -> None:
    args = ["mcp", "--profile", "light", "--ollama-host", "http://127.0.0.1:9"]
    names = await tool_names("raggin-lsp", args, tmp_path, environment(tmp_path))
    assert names == readme_tools()
    assert "ask" in names

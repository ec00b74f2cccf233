"""The editor set-ups agree with the server: commands that start it, the file types it
serves, the settings it accepts and the command names it registers.

Helix and WebStorm cannot run here, so their files are checked against the server's own
constants (never a copy of them) and their commands are started for real.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from raggin_lsp.code.syntax import SOURCE_SUFFIXES
from raggin_lsp.server import code_actions
from raggin_lsp.settings import FIELDS, SETTINGS, Settings, validate
from tests.editors.conftest import FIXTURE_PROJECT, ROOT
from tests.editors.stdio_client import initialize

EDITORS = ROOT / "editors"
HELIX = EDITORS / "helix" / "languages.toml"
LSP4IJ = EDITORS / "webstorm" / "raggin-lsp"
VSCODE = EDITORS / "vscode"
NEOVIM = EDITORS / "neovim"
# Settings of the VS Code extension itself, not sent to the server.
VSCODE_KEYS = {"raggin.serverPath", "raggin.pythonPath", "raggin.serverArgs"}  # client only
# Helix's built-in languages and their file types (helix-editor/helix languages.toml).
HELIX_FILE_TYPES = {
    "typescript": {".ts", ".mts", ".cts"},
    "tsx": {".tsx"},
    "javascript": {".js", ".mjs", ".cjs"},
    "jsx": {".jsx"},
    "markdown": {".md", ".markdown", ".mdx", ".mkd", ".mkdn", ".mdwn", ".mdown", ".markdn"},
}


def _env_with_venv() -> dict[str, str]:
    """PATH as an editor started from the activated environment would see it."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _starts_the_server(argv: list[str]) -> None:
    env = _env_with_venv()
    executable = shutil.which(argv[0], path=env["PATH"])
    assert executable is not None, f"{argv[0]} is not on PATH (pip install -e . first)"
    help_run = subprocess.run(
        [*argv, "--help"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert help_run.returncode == 0, help_run.stderr
    assert "--tcp" in help_run.stdout, "the command is the server's serve subcommand"
    result = initialize(argv, FIXTURE_PROJECT, env)
    assert result["serverInfo"]["name"] == "raggin-lsp"
    assert result["capabilities"]["hoverProvider"]
    commands = set(result["capabilities"]["executeCommandProvider"]["commands"])
    assert {code_actions.ASK, code_actions.SEARCH, code_actions.INDEX} <= commands


# --- Helix -------------------------------------------------------------------------------


def _helix() -> dict[str, Any]:
    with HELIX.open("rb") as file:
        return tomllib.load(file)


def test_helix_command_starts_the_server() -> None:
    server = _helix()["language-server"]["raggin"]
    _starts_the_server([server["command"], *server["args"]])


def test_helix_languages_cover_exactly_the_served_file_types() -> None:
    languages = {
        language["name"]: language["language-servers"]
        for language in _helix()["language"]
        if "raggin" in language["language-servers"]
    }
    covered = set().union(*(HELIX_FILE_TYPES[name] for name in languages))
    assert set(SOURCE_SUFFIXES) <= covered
    for name in languages:
        assert HELIX_FILE_TYPES[name] & set(SOURCE_SUFFIXES), f"{name} is not served"
        assert len(languages[name]) >= 2, f"{name} keeps its usual language server"


def test_helix_settings_pass_the_server_validation() -> None:
    config = _helix()["language-server"]["raggin"]["config"]
    values, problems = validate(config, "helix")
    assert problems == []
    assert values


# --- WebStorm (LSP4IJ) -------------------------------------------------------------------


def _template() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((LSP4IJ / "template.json").read_text(encoding="utf-8"))
    return data


def test_lsp4ij_template_has_the_fields_lsp4ij_reads() -> None:
    template = _template()
    assert template["id"]
    assert template["name"]
    assert set(template["programArgs"]) == {"default", "windows"}
    for mapping in template["fileTypeMappings"]:
        assert mapping["fileType"]["name"]
        assert mapping["fileType"]["patterns"]
        assert mapping["languageId"]


def test_lsp4ij_command_starts_the_server() -> None:
    shell, flag, command = shlex.split(_template()["programArgs"]["default"])
    assert (shell, flag) == ("sh", "-c")
    _starts_the_server(shlex.split(command))


def test_lsp4ij_patterns_are_exactly_the_served_file_types() -> None:
    patterns = [p for m in _template()["fileTypeMappings"] for p in m["fileType"]["patterns"]]
    assert sorted(patterns) == sorted(f"*{suffix}" for suffix in SOURCE_SUFFIXES)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("settings.json", id="settings"),
        pytest.param("initializationOptions.json", id="init"),
    ],
)
def test_lsp4ij_settings_pass_the_server_validation(name: str) -> None:
    values, problems = validate(json.loads((LSP4IJ / name).read_text(encoding="utf-8")), name)
    assert problems == []
    assert values


# --- VS Code -------------------------------------------------------------------------------


def _vscode_manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    return data


def _disagreements(declared: Any, contributed: Any, where: str) -> list[str]:
    """Where ``contributed`` (package.json) differs from the declared JSON schema; keys the
    declaration leaves out (descriptions, scope) are VS Code's own."""
    if isinstance(declared, Mapping) and isinstance(contributed, Mapping):
        return [
            problem
            for key, value in declared.items()
            for problem in _disagreements(value, contributed.get(key), f"{where}.{key}")
        ]
    return [] if declared == contributed else [f"{where}: {contributed!r} != {declared!r}"]


def test_vscode_settings_mirror_the_server_settings() -> None:
    properties = _vscode_manifest()["contributes"]["configuration"]["properties"]
    keys = [key.removeprefix("raggin.") for key in properties if key not in VSCODE_KEYS]
    assert keys == list(FIELDS)  # the same settings, in the same order
    defaults = Settings().to_json()
    problems = []
    for setting in SETTINGS:
        contributed = properties[f"raggin.{setting.key}"]
        expected = {**setting.check.schema, "default": defaults[setting.key]}
        problems += _disagreements(expected, contributed, setting.key)
        if not contributed.get("description") and not contributed.get("markdownDescription"):
            problems.append(f"{setting.key}: no description")
    assert problems == []


def test_a_contribution_that_drifts_from_its_declaration_is_caught() -> None:
    schema = {"type": "integer", "minimum": 1, "maximum": 50, "properties": {"a": {"type": "x"}}}
    drifted = {"type": "integer", "minimum": 1, "properties": {"a": {"type": "y"}}, "scope": "m"}
    assert _disagreements(schema, drifted, "topK") == [
        "topK.maximum: None != 50",
        "topK.properties.a.type: 'y' != 'x'",
    ]


def test_vscode_forwards_every_server_setting() -> None:
    source = (VSCODE / "src" / "settings.ts").read_text(encoding="utf-8")
    block = re.search(r"SERVER_KEYS = \[(.*?)\] as const", source, re.S)
    assert block is not None
    assert set(re.findall(r"'(\w+)'", block.group(1))) == set(FIELDS)


def test_vscode_commands_do_not_shadow_the_server_commands() -> None:
    # vscode-languageclient registers the server's commands under their own names.
    ours = {command["command"] for command in _vscode_manifest()["contributes"]["commands"]}
    server = {
        code_actions.ASK,
        code_actions.SEARCH,
        code_actions.INDEX,
        code_actions.SELECT_VERSION,
    }
    assert not ours & server
    titles = {command["title"] for command in _vscode_manifest()["contributes"]["commands"]}
    assert {
        "Ask",
        "Search docs",
        "Index version",
        "Select Next.js version",
        "Select model",
    } <= titles


def test_vscode_default_command_starts_the_server() -> None:
    _starts_the_server(["raggin-lsp", "serve"])


# --- Neovim --------------------------------------------------------------------------------


def _lua_list(source: str, name: str) -> list[str]:
    block = re.search(rf"M\.{name} = \{{(.*?)\}}", source, re.S)
    assert block is not None, name
    return re.findall(r"'([^']+)'", block.group(1))


@pytest.mark.skipif(shutil.which("nvim") is None, reason="needs Neovim")
def test_neovim_filetypes_cover_the_served_file_types(tmp_path: Path) -> None:
    filetypes = set(_lua_list((NEOVIM / "lua" / "raggin" / "init.lua").read_text(), "filetypes"))
    script = tmp_path / "detect.lua"
    script.write_text(
        "vim.cmd('filetype on')\nlocal out = {}\n"
        f"for _, suffix in ipairs(vim.fn.json_decode('{json.dumps(list(SOURCE_SUFFIXES))}')) do\n"
        "  vim.cmd('enew!')\n  vim.cmd('file x' .. suffix)\n  vim.cmd('filetype detect')\n"
        "  out[suffix] = vim.bo.filetype\nend\n"
        "io.stdout:write(vim.fn.json_encode(out))\n"
    )
    run = subprocess.run(
        [
            "nvim",
            "--headless",
            "-u",
            "NONE",
            "-i",
            "NONE",
            "-c",
            f"luafile {script}",
            "-c",
            "qall!",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    detected: dict[str, str] = json.loads(run.stdout)
    for suffix, filetype in detected.items():
        # Older Neovims leave some suffixes (.mts, .mdx) without a filetype: nothing to map.
        assert not filetype or filetype in filetypes, f"{suffix} opens as {filetype!r}"
    core = {detected[s] for s in (".ts", ".tsx", ".js", ".jsx", ".md")}
    assert core <= filetypes


def test_neovim_default_command_starts_the_server() -> None:
    source = (NEOVIM / "lua" / "raggin" / "init.lua").read_text()
    match = re.search(r"cmd = \{ '([^']+)', '([^']+)' \}", source)
    assert match is not None
    _starts_the_server(list(match.groups()))

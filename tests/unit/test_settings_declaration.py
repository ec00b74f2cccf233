"""Each setting is declared once (``SETTINGS``); the client-key map, JSON, the docs table
and the pipeline's config derive from it, and one constant names the default profile."""

import dataclasses
import re
from pathlib import Path

import pytest

from raggin_lsp.assistant import AssistantConfig
from raggin_lsp.cli import build_parser
from raggin_lsp.embed.catalog import DEFAULT_PROFILE
from raggin_lsp.retrieve.stages import DEFAULT_STAGES
from raggin_lsp.settings import (
    FIELDS,
    SETTINGS,
    Generation,
    Setting,
    Settings,
    stages_to_json,
    validate,
)
from tools.settings_docs import PROTOCOL_DOC, with_table


def test_every_settings_field_is_declared_once() -> None:
    declared = [setting.field_name for setting in SETTINGS]
    assert sorted(declared) == sorted(field.name for field in dataclasses.fields(Settings))
    assert len({setting.key for setting in SETTINGS}) == len(SETTINGS)
    assert list(FIELDS) == [setting.key for setting in SETTINGS]


def test_to_json_shows_every_setting_in_the_client_spelling() -> None:
    settings = Settings(
        model_path=Path("/models/bge"),
        qdrant_api_key="secret",
        generation=Generation(temperature=0.2),
    )
    shown = settings.to_json()
    assert list(shown) == list(FIELDS)
    assert shown["modelPath"] == "/models/bge"
    assert shown["qdrantPath"] is None
    assert shown["qdrantApiKey"] == "***"
    assert shown["generation"] == {"temperature": 0.2}
    assert shown["retrievalStages"] == stages_to_json(DEFAULT_STAGES)
    assert Settings().to_json()["qdrantApiKey"] is None


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda setting: setting.key)
def test_a_shown_default_passes_its_own_check(setting: Setting) -> None:
    key = setting.key
    value = Settings().to_json()[key]
    if value is None:
        pytest.skip("no default value")
    values, problems = validate({key: value}, "defaults")
    assert problems == []
    assert getattr(Settings(), FIELDS[key][0]) == values[FIELDS[key][0]]


def test_the_protocol_docs_table_is_the_one_generated_from_the_declarations() -> None:
    """``make docs`` regenerates it; a declaration changed without it fails here."""
    document = PROTOCOL_DOC.read_text(encoding="utf-8")
    assert with_table(document) == document
    section = document.split("## Settings", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `(\w+)` \|", section, re.M)
    assert documented == list(FIELDS)


def test_a_changed_declaration_makes_the_docs_table_stale() -> None:
    document = PROTOCOL_DOC.read_text(encoding="utf-8")
    stale = document.replace("| sections per search |", "| results per search |")
    assert stale != document
    assert with_table(stale) == document


def test_the_settings_the_pipeline_and_the_cli_share_the_catalogs_default_profile() -> None:
    assert Settings().profile == DEFAULT_PROFILE
    assert AssistantConfig().profile == DEFAULT_PROFILE
    assert build_parser().parse_args(["stats"]).profile == DEFAULT_PROFILE

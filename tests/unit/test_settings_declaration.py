"""Each setting is declared once (``SETTINGS``); the client-key map and JSON derive from it."""

import dataclasses
import re
from pathlib import Path

import pytest

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


def test_the_protocol_docs_table_lists_every_setting() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
    section = docs.read_text(encoding="utf-8").split("## Settings", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    documented = {key for row in rows for key in re.findall(r"`(\w+)`", row.split(" | ")[0])}
    assert documented == set(FIELDS)

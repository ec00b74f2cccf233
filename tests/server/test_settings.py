"""Settings: precedence of the sources, validation, and keeping the last valid value."""

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from raggin_lsp.assistant import AssistantConfig
from raggin_lsp.settings import Generation, Settings, SettingsStore, validate


def test_defaults_when_no_source_says_anything() -> None:
    assert SettingsStore().effective() == Settings()
    assert Settings().next_version == "auto"
    assert Settings().auto_index is True


def test_precedence_client_over_init_options_over_workspace_over_user(tmp_path: Path) -> None:
    store = SettingsStore()
    store.update("user", {"topK": 2, "model": "user-model", "fusion": "dbsf", "router": "pages"})
    store.update("workspace", {"topK": 3, "model": "workspace-model", "fusion": "sparse"})
    store.update("initializationOptions", {"topK": 4, "model": "init-model"})
    store.update("client", {"topK": 5})

    settings = store.effective()

    assert (settings.top_k, settings.model, settings.fusion, settings.router) == (
        5,
        "init-model",
        "sparse",
        "pages",
    )


@pytest.mark.parametrize(
    ("raw", "field", "fragment"),
    [
        pytest.param(
            {"topK": "5"}, "topK", "expected an integer, got string '5'", id="int-as-string"
        ),
        pytest.param(
            {"topK": True}, "topK", "expected an integer, got boolean", id="bool-is-not-int"
        ),
        pytest.param({"topK": 0}, "topK", "from 1 to 50", id="int-out-of-range"),
        pytest.param(
            {"fusion": "max"}, "fusion", "rrf, dbsf, weighted, sparse, dense", id="bad-choice"
        ),
        pytest.param({"autoIndex": "yes"}, "autoIndex", "true or false", id="bool-as-string"),
        pytest.param(
            {"ollamaHost": "localhost:11434"}, "ollamaHost", "http://", id="host-without-scheme"
        ),
        pytest.param({"nextVersion": "16"}, "nextVersion", '"16.2.0"', id="partial-version"),
        pytest.param(
            {"generation": {"temperature": 3}}, "generation", "temperature", id="temperature-range"
        ),
        pytest.param(
            {"generation": {"seed": 1}}, "generation", "unknown option 'seed'", id="unknown-option"
        ),
        pytest.param(
            {"generation": 0.2}, "generation", "expected an object", id="generation-not-object"
        ),
    ],
)
def test_invalid_values_are_named_with_what_was_expected(
    raw: dict[str, Any], field: str, fragment: str
) -> None:
    values, problems = validate(raw, "client settings")
    assert values == {}
    assert len(problems) == 1
    assert problems[0].startswith(f"client settings: {field}: ")
    assert fragment in problems[0]


def test_unknown_keys_are_reported_with_the_known_ones() -> None:
    _, problems = validate({"topk": 3}, ".raggin.yaml")
    assert problems == [problems[0]]
    assert "unknown setting 'topk'" in problems[0]
    assert "topK" in problems[0]


def test_valid_values_are_typed(tmp_path: Path) -> None:
    values, problems = validate(
        {
            "nextVersion": "16.2.0",
            "qdrantPath": "index",
            "modelPath": "~/models",
            "generation": {"temperature": 0, "num_ctx": 4096},
            "ollamaHost": "http://127.0.0.1:11434/",
        },
        "x",
        base=tmp_path,
    )
    assert problems == []
    assert values["qdrant_path"] == tmp_path / "index"
    assert values["model_path"] == Path.home() / "models"
    assert values["generation"] == Generation(temperature=0.0, num_ctx=4096)
    assert values["ollama_host"] == "http://127.0.0.1:11434"


def test_an_invalid_value_keeps_the_previous_valid_one_and_is_reported_once() -> None:
    store = SettingsStore()
    assert store.update("client", {"topK": 7}) == []

    first = store.update("client", {"topK": "many"})
    again = store.update("client", {"topK": "many"})

    assert store.effective().top_k == 7
    assert len(first) == 1
    assert again == []


def test_a_key_removed_from_a_source_falls_back_to_lower_sources() -> None:
    store = SettingsStore()
    store.update("user", {"model": "user-model"})
    store.update("client", {"model": "client-model"})
    store.update("client", {})
    assert store.effective().model == "user-model"


def test_settings_may_be_nested_under_raggin_and_in_snake_case() -> None:
    values, problems = validate({"raggin": {"top_k": 9, "autoIndex": False}}, "init")
    assert problems == []
    assert values == {"top_k": 9, "auto_index": False}


def test_yaml_file_source_relative_paths_and_broken_files(tmp_path: Path) -> None:
    config = tmp_path / ".raggin.yaml"
    config.write_text("profile: light\nqdrantPath: .index\n", encoding="utf-8")
    store = SettingsStore()

    assert store.update_file("workspace", config) == []
    assert store.effective().profile == "light"
    assert store.effective().qdrant_path == tmp_path / ".index"

    config.write_text("profile: [light\n", encoding="utf-8")
    problems = store.update_file("workspace", config)
    assert len(problems) == 1
    assert "not valid YAML" in problems[0]
    assert store.effective().profile == "light"  # the broken file keeps what it gave


def test_missing_file_is_no_problem(tmp_path: Path) -> None:
    store = SettingsStore()
    assert store.update_file("user", tmp_path / "absent.yaml") == []
    assert store.effective() == Settings()


def test_assistant_config_carries_the_settings() -> None:
    store = SettingsStore()
    store.update(
        "client",
        {
            "profile": "light",
            "topK": 3,
            "generation": {"temperature": 0.1},
            "autoIndex": False,
            "firstTokenTimeout": 90,
        },
    )
    config = AssistantConfig.from_settings(store.effective())
    assert (config.profile, config.top_k, config.auto_index) == ("light", 3, False)
    assert config.generation_settings().options["temperature"] == 0.1
    assert config.generation_settings().first_token_timeout == 90.0


def test_a_server_only_setting_leaves_the_assistant_config_alone() -> None:
    """Changing the router or diagnostics must not reload the index; the model must."""
    base = Settings()
    before = AssistantConfig.from_settings(base)
    for changed in ({"router": "app"}, {"diagnostics": False}, {"next_version": "16.2.0"}):
        assert AssistantConfig.from_settings(replace(base, **changed)) == before, changed
    assert AssistantConfig.from_settings(replace(base, model="llama3")) != before


def test_api_key_is_masked_in_json() -> None:
    store = SettingsStore()
    store.update("client", {"qdrantApiKey": "secret"})
    assert store.effective().to_json()["qdrantApiKey"] == "***"

"""The profile catalog and the specs the store keys its collections on."""

import dataclasses
from pathlib import Path

import pytest

from raggin_lsp.embed import DEFAULT_PROFILE, PROFILES, get_profile_spec
from raggin_lsp.embed.catalog import LIGHT, PinnedFile
from raggin_lsp.errors import ModelError


@pytest.mark.parametrize(
    ("name", "dim", "chunk_tokens", "idf"),
    [
        pytest.param("bge-m3", 1024, 512, False, id="bge-m3"),
        pytest.param("light", 384, 224, True, id="light"),
    ],
)
def test_spec_describes_the_profile(name: str, dim: int, chunk_tokens: int, idf: bool) -> None:
    spec = get_profile_spec(name)

    assert (spec.name, spec.dense_dim, spec.chunk_tokens, spec.sparse_uses_idf) == (
        name,
        dim,
        chunk_tokens,
        idf,
    )
    assert spec.fingerprint.startswith(name)


def test_default_profile_is_in_the_catalog() -> None:
    assert DEFAULT_PROFILE in PROFILES


def test_fingerprints_differ_between_profiles_and_are_stable() -> None:
    assert get_profile_spec("light").fingerprint != get_profile_spec("bge-m3").fingerprint
    assert get_profile_spec("light").fingerprint == get_profile_spec("light").fingerprint


def test_local_model_path_keeps_the_fingerprint(tmp_path: Path) -> None:
    assert (
        get_profile_spec("bge-m3", model_path=tmp_path).fingerprint
        == get_profile_spec("bge-m3").fingerprint
    )


def test_truncation_changes_the_fingerprint_and_caps_chunks() -> None:
    short = get_profile_spec("bge-m3", max_tokens=256)

    assert short.fingerprint != get_profile_spec("bge-m3").fingerprint
    assert short.chunk_tokens == 256


@pytest.mark.parametrize(
    ("name", "max_tokens", "message"),
    [
        pytest.param("bge-m4", None, "choose one of: bge-m3, light", id="unknown-profile"),
        pytest.param("light", 128, "fixed length", id="light-has-fixed-length"),
        pytest.param("bge-m3", 9000, r"16\.\.8192", id="beyond-the-model"),
        pytest.param("bge-m3", 4, r"16\.\.8192", id="too-short"),
    ],
)
def test_bad_requests_are_explained(name: str, max_tokens: int | None, message: str) -> None:
    with pytest.raises(ModelError, match=message):
        get_profile_spec(name, max_tokens=max_tokens)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"chunk_tokens": 300}, id="chunk-longer-than-model"),
        pytest.param({"sparse_uses_idf": False}, id="bm25-without-idf"),
        pytest.param({"hf_repo": "BAAI/bge-m3"}, id="two-sources"),
        pytest.param({"dense_dim": 0}, id="no-dimension"),
    ],
)
def test_catalog_entries_are_validated(change: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=LIGHT.name):
        dataclasses.replace(LIGHT, **change)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"sha256": "abc"}, id="short-sha"),
        pytest.param({"sha256": "A" * 64}, id="uppercase-sha"),
        pytest.param({"target": "../model.onnx"}, id="escaping-target"),
    ],
)
def test_pinned_files_are_validated(change: dict[str, str]) -> None:
    pinned: PinnedFile = LIGHT.pinned_files[0]

    with pytest.raises(ValueError, match="must be"):
        dataclasses.replace(pinned, **change)

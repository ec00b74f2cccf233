"""The cached punctuation set is exactly the one fastembed's BM25 would compute."""

from pathlib import Path

import pytest
from fastembed.common.utils import get_all_punctuation

from raggin_lsp.embed import punctuation


def test_the_cached_set_equals_fastembeds_and_is_read_back_from_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGGIN_CACHE_DIR", str(tmp_path))
    punctuation.punctuation.cache_clear()
    first = punctuation.punctuation()
    assert first == get_all_punctuation()
    (cached,) = (tmp_path / "models").glob("punctuation-unicode-*.json")
    punctuation.punctuation.cache_clear()
    assert punctuation.punctuation() == first  # now from the file
    assert cached.stat().st_size > 0
    punctuation.punctuation.cache_clear()

"""Sharing an index: an export carries its sha256, and an import checks the file, the
profile and the version before it writes anything (test doubles, no model)."""

import gzip
import hashlib
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from raggin_lsp.errors import RagginError
from raggin_lsp.share import export_file, is_export_source
from raggin_lsp.store import (
    DocsIndex,
    ExportChecksumError,
    ExportVersionError,
    IndexInterrupted,
    ProfileMismatchError,
    StoreSettings,
    transfer,
)
from tests.unit.store_doubles import HashingTestEmbedder, corpus


@pytest.fixture
def embedder() -> HashingTestEmbedder:
    return HashingTestEmbedder()


@pytest.fixture
def exported(embedder: HashingTestEmbedder, tmp_path: Path) -> Path:
    """An export of 16.2.0 made from an embedded index of the test corpus."""
    with DocsIndex.open(StoreSettings(path=tmp_path / "source"), embedder.spec) as source:
        source.index_version("16.2.0", corpus("16.2.0"), embedder)
        file = tmp_path / "next-16.2.0.raggin.gz"
        assert source.export_version("16.2.0", file) == 6
    return file


@pytest.fixture
def target(embedder: HashingTestEmbedder, tmp_path: Path) -> Iterator[DocsIndex]:
    with DocsIndex.open(StoreSettings(path=tmp_path / "target"), embedder.spec) as index:
        yield index


def _lines(file: Path) -> list[str]:
    with gzip.open(file, "rt", encoding="utf-8") as handle:
        return handle.read().splitlines(keepends=True)


def _rewrite(file: Path, lines: list[str]) -> None:
    with gzip.open(file, "wt", encoding="utf-8") as handle:
        handle.write("".join(lines))


def _untouched(index: DocsIndex) -> None:
    """Nothing listed, nothing half-written."""
    assert index.versions() == []
    (mine,) = [s for s in index.stats() if s.collection == index.collection]
    assert (mine.points, mine.incomplete) == (0, ())


def test_an_export_ends_with_the_sha256_of_its_content(exported: Path) -> None:
    lines = _lines(exported)
    header, trailer = json.loads(lines[0]), json.loads(lines[-1])
    assert (header["format_version"], header["checksum"]) == (2, "sha256")
    assert trailer["format"] == transfer.TRAILER
    assert trailer["points"] == len(lines) - 2 == 6
    assert trailer["sha256"] == hashlib.sha256("".join(lines[:-1]).encode()).hexdigest()
    assert not exported.with_name(exported.name + ".part").exists()


def test_import_with_the_version_gives_the_same_version(exported: Path, target: DocsIndex) -> None:
    assert is_export_source(str(exported))
    report = target.import_file(exported, version="16.2.0")
    assert (report.version, report.sections_total, report.embedded) == ("16.2.0", 6, 6)
    assert target.versions() == ["16.2.0"]
    (info,) = target.version_infos()
    assert info.complete
    assert info.sections == 6


def test_a_changed_byte_is_refused_before_anything_is_written(
    exported: Path, target: DocsIndex
) -> None:
    lines = _lines(exported)
    point = lines[3]
    at = point.index('"vector":') + 20  # inside a base64 dense vector
    lines[3] = point[:at] + ("A" if point[at] != "A" else "B") + point[at + 1 :]
    _rewrite(exported, lines)

    with pytest.raises(ExportChecksumError, match="does not match its sha256 checksum"):
        target.import_file(exported, version="16.2.0")
    _untouched(target)


def test_a_flipped_byte_of_the_compressed_file_is_refused(
    exported: Path, target: DocsIndex
) -> None:
    data = bytearray(exported.read_bytes())
    data[len(data) // 2] ^= 0xFF
    exported.write_bytes(bytes(data))
    with pytest.raises(ExportChecksumError, match="nothing was imported"):
        target.import_file(exported)
    _untouched(target)


def test_a_truncated_file_is_refused(exported: Path, target: DocsIndex) -> None:
    _rewrite(exported, _lines(exported)[:-2])  # an interrupted download or export
    with pytest.raises(ExportChecksumError, match="truncated"):
        target.import_file(exported)
    _untouched(target)


def test_another_version_is_refused_with_the_command_to_run(
    exported: Path, target: DocsIndex
) -> None:
    with pytest.raises(ExportVersionError) as caught:
        target.import_file(exported, version="16.4.6")
    message = str(caught.value)
    assert "holds the Next.js 16.2.0 docs, not 16.4.6" in message
    assert f"raggin-lsp index 16.2.0 --from {exported}" in message
    _untouched(target)


def test_another_profile_is_refused_naming_both_and_what_to_run(
    exported: Path, tmp_path: Path
) -> None:
    light = HashingTestEmbedder(name="other-profile", fingerprint="0ther0model9")
    with DocsIndex.open(StoreSettings(path=tmp_path / "other"), light.spec) as other:
        with pytest.raises(ProfileMismatchError) as caught:
            other.import_file(exported, version="16.2.0")
        message = str(caught.value)
        assert "'test-hashing'" in message
        assert "'other-profile'" in message
        assert f"--from {exported} --profile test-hashing" in message
        _untouched(other)


def test_the_same_profile_from_another_model_is_refused(exported: Path, tmp_path: Path) -> None:
    other_model = HashingTestEmbedder(fingerprint="0ther0model9")
    with DocsIndex.open(StoreSettings(path=tmp_path / "other"), other_model.spec) as other:
        with pytest.raises(ProfileMismatchError, match="made by another model"):
            other.import_file(exported)
        _untouched(other)


def test_a_version_1_file_without_checksum_still_imports(exported: Path, target: DocsIndex) -> None:
    lines = _lines(exported)
    header = json.loads(lines[0])
    header["format_version"] = 1
    del header["checksum"]
    _rewrite(exported, [json.dumps(header) + "\n", *lines[1:-1]])
    assert target.import_file(exported, version="16.2.0").sections_total == 6
    assert target.versions() == ["16.2.0"]


def test_a_stopped_import_keeps_the_complete_version_as_it_was(
    exported: Path, target: DocsIndex, embedder: HashingTestEmbedder
) -> None:
    target.index_version("16.2.0", corpus("16.2.0"), embedder)
    before = target.version_infos()
    with pytest.raises(IndexInterrupted):
        target.import_file(exported, should_stop=lambda: True)
    assert target.versions() == ["16.2.0"]
    assert target.version_infos() == before


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def served(exported: Path) -> Iterator[str]:
    """A local HTTP server (127.0.0.1) serving the export's folder; yields its base URL."""

    def handler(*args: object, **kwargs: object) -> _Quiet:
        return _Quiet(*args, directory=str(exported.parent), **kwargs)  # type: ignore[arg-type]

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_an_export_imports_from_a_url_and_the_download_is_removed(
    exported: Path, target: DocsIndex, served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGGIN_CACHE_DIR", str(tmp_path / "cache"))
    url = f"{served}/{exported.name}"
    assert is_export_source(url)
    seen: list[tuple[int, int | None]] = []
    with export_file(url, progress=lambda done, total: seen.append((done, total))) as file:
        assert file.parent == tmp_path / "cache" / "imports"
        report = target.import_file(file, version="16.2.0", name=url)
    assert report.sections_total == 6
    assert target.versions() == ["16.2.0"]
    assert seen[-1] == (exported.stat().st_size, exported.stat().st_size)
    assert list((tmp_path / "cache" / "imports").iterdir()) == []


def test_a_missing_url_is_a_clear_error(
    served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGGIN_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(RagginError, match="404"), export_file(f"{served}/nope.gz"):
        pass
    assert list((tmp_path / "cache" / "imports").iterdir()) == []


def test_a_file_url_is_read_in_place(exported: Path) -> None:
    with export_file(exported.as_uri()) as file:
        assert file == exported


def test_a_docs_folder_is_no_export(tmp_path: Path) -> None:
    assert not is_export_source(str(tmp_path))
    (tmp_path / "docs.tgz").write_bytes(gzip.compress(b"not json"))
    assert not is_export_source(str(tmp_path / "docs.tgz"))

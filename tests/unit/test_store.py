"""The versioned, content-addressed index: what a user of `raggin-lsp index` would notice."""

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import QdrantClient

from raggin_lsp.errors import NotIndexedError
from raggin_lsp.retrieve.search import search
from raggin_lsp.store import (
    DocsIndex,
    ExportFormatError,
    IndexBusyError,
    IndexInterrupted,
    IndexProgress,
    ProfileMismatchError,
    StoreSettings,
)
from raggin_lsp.store.schema import MANIFEST_COLLECTION, collection_name, point_id
from tests.unit.store_doubles import HashingTestEmbedder, corpus


@pytest.fixture
def embedder() -> HashingTestEmbedder:
    return HashingTestEmbedder()


@pytest.fixture(params=["edge", "server"])
def index(
    request: pytest.FixtureRequest, embedder: HashingTestEmbedder, tmp_path: Path
) -> Iterator[DocsIndex]:
    """Every behaviour holds for the embedded Qdrant Edge index and for a Qdrant server
    (qdrant-client's local mode stands in for the server)."""
    if request.param == "edge":
        opened = DocsIndex.open(StoreSettings(path=tmp_path / "edge-index"), embedder.spec)
    else:
        opened = DocsIndex.open(StoreSettings(), embedder.spec, client=QdrantClient(":memory:"))
    with opened as idx:
        yield idx


def _texts_per_version(version: str) -> int:
    return sum(1 + len(s.code) for s in corpus(version))


def _points(index: DocsIndex) -> int:
    (mine,) = [s for s in index.stats() if s.collection == index.collection]
    return mine.points


def test_unchanged_sections_are_stored_once_for_both_versions(
    index: DocsIndex, embedder: HashingTestEmbedder
) -> None:
    first = index.index_version("16.2.0", corpus("16.2.0"), embedder)
    second = index.index_version("16.4.6", corpus("16.4.6"), embedder)

    assert (first.embedded, first.reused) == (6, 0)
    assert (second.embedded, second.reused) == (0, 6)
    assert len(embedder.embedded_texts) == _texts_per_version("16.2.0")
    assert _points(index) == 6
    assert index.versions() == ["16.2.0", "16.4.6"]
    hit = search(index, embedder, "revalidatePath", "16.2.0", top_k=1)[0]
    assert hit.version == "16.2.0"
    assert "revalidatePath" in hit.text


def test_a_changed_section_becomes_a_new_point(
    index: DocsIndex, embedder: HashingTestEmbedder
) -> None:
    index.index_version("16.2.0", corpus("16.2.0"), embedder)
    changed = corpus("16.4.6")
    changed[0] = replace(changed[0], text="revalidateTag purges cached data by tag on demand")

    report = index.index_version("16.4.6", changed, embedder)

    assert (report.embedded, report.reused) == (1, 5)
    assert _points(index) == 7
    old = search(index, embedder, "purges cached data on demand", "16.2.0", top_k=1)[0]
    new = search(index, embedder, "purges cached data on demand", "16.4.6", top_k=1)[0]
    assert "revalidatePath" in old.text
    assert "revalidateTag" in new.text


def test_stopping_between_batches_keeps_work_and_the_next_run_resumes(
    index: DocsIndex, embedder: HashingTestEmbedder
) -> None:
    index.index_version("16.2.0", corpus("16.2.0")[:2], embedder)
    embedded_for_16_2_0 = len(embedder.embedded_texts)
    calls = 0

    def stop_after_first_batch() -> bool:
        nonlocal calls
        calls += 1
        return calls > 1

    with pytest.raises(IndexInterrupted, match=r"raggin-lsp index 16\.4\.6"):
        index.index_version(
            "16.4.6", corpus("16.4.6"), embedder, should_stop=stop_after_first_batch, batch_size=2
        )
    assert index.versions() == ["16.2.0"]
    assert [s.incomplete for s in index.stats()] == [("16.4.6",)]
    with pytest.raises(NotIndexedError):
        search(index, embedder, "route group", "16.4.6")

    report = index.index_version("16.4.6", corpus("16.4.6"), embedder, batch_size=2)

    # 2 sections shared with 16.2.0, 2 stored before the stop, 2 left to embed.
    assert (report.embedded, report.reused) == (2, 4)
    # Each of the 4 sections 16.2.0 lacks was embedded once over both runs, none twice.
    assert len(embedder.embedded_texts) - embedded_for_16_2_0 == sum(
        1 + len(s.code) for s in corpus("16.4.6")[2:]
    )
    assert index.versions() == ["16.2.0", "16.4.6"]


def test_progress_counts_up_to_the_total_with_an_eta(
    index: DocsIndex, embedder: HashingTestEmbedder
) -> None:
    index.index_version("16.2.0", corpus("16.2.0")[:3], embedder)
    seen: list[IndexProgress] = []

    index.index_version("16.4.6", corpus("16.4.6"), embedder, progress=seen.append, batch_size=1)

    assert [p.done for p in seen] == [3, 4, 5, 6]
    assert all(p.total == 6 for p in seen)
    assert seen[0].eta_seconds is None
    assert all(p.eta_seconds is not None and p.eta_seconds >= 0 for p in seen[1:])
    assert seen[-1].eta_seconds == 0.0


def test_remove_version_deletes_orphans_and_keeps_shared_points(
    index: DocsIndex, embedder: HashingTestEmbedder
) -> None:
    index.index_version("16.2.0", corpus("16.2.0"), embedder)
    newer = corpus("16.4.6")
    newer[0] = replace(newer[0], text="revalidateTag purges cached data by tag")
    index.index_version("16.4.6", newer, embedder)

    deleted = index.remove_version("16.2.0")

    assert deleted == 1
    assert index.versions() == ["16.4.6"]
    assert _points(index) == 6
    assert len(search(index, embedder, "route group", "16.4.6", top_k=10)) == 6
    with pytest.raises(NotIndexedError, match=r"indexed versions: 16\.4\.6"):
        search(index, embedder, "route group", "16.2.0")


def test_removing_an_unknown_version_says_so(index: DocsIndex) -> None:
    with pytest.raises(NotIndexedError, match=r"15\.0\.0 is not in the"):
        index.remove_version("15.0.0")


def test_not_indexed_error_names_the_versions_and_the_command(
    index: DocsIndex, embedder: HashingTestEmbedder
) -> None:
    index.index_version("16.2.0", corpus("16.2.0"), embedder)

    with pytest.raises(NotIndexedError) as caught:
        search(index, embedder, "caching", "15.5.29")

    message = str(caught.value)
    assert "15.5.29" in message
    assert "16.2.0" in message
    assert "raggin-lsp index 15.5.29" in message


def test_export_then_import_gives_the_same_results_without_the_model(
    index: DocsIndex, embedder: HashingTestEmbedder, tmp_path: Path
) -> None:
    index.index_version("16.2.0", corpus("16.2.0"), embedder)
    file = tmp_path / "16.2.0.jsonl.gz"
    assert index.export_version("16.2.0", file) == 6

    with DocsIndex.open(StoreSettings(), embedder.spec, client=QdrantClient(":memory:")) as other:
        report = other.import_file(file)
        assert (report.version, report.sections_total, report.embedded) == ("16.2.0", 6, 6)
        assert other.versions() == ["16.2.0"]
        for question, code in [("opt out of caching", "fetch(url)"), ("route group", None)]:
            mine = search(index, embedder, question, "16.2.0", code=code, top_k=6)
            theirs = search(other, embedder, question, "16.2.0", code=code, top_k=6)
            assert [r.url for r in theirs] == [r.url for r in mine]
            for a, b in zip(theirs, mine, strict=True):
                assert a.scores == pytest.approx(b.scores, rel=1e-4, abs=1e-6)


def test_import_refuses_a_file_from_another_model(
    index: DocsIndex, embedder: HashingTestEmbedder, tmp_path: Path
) -> None:
    index.index_version("16.2.0", corpus("16.2.0"), embedder)
    file = tmp_path / "export.jsonl.gz"
    index.export_version("16.2.0", file)
    other_model = HashingTestEmbedder(name="test-hashing", fingerprint="0ther0model9")

    with DocsIndex.open(
        StoreSettings(), other_model.spec, client=QdrantClient(":memory:")
    ) as other:
        with pytest.raises(ProfileMismatchError, match="cannot be mixed"):
            other.import_file(file)
        assert other.versions() == []


def test_import_refuses_a_file_that_is_no_export(index: DocsIndex, tmp_path: Path) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("hello")
    with pytest.raises(ExportFormatError, match="not a raggin index export"):
        index.import_file(file)


def test_each_model_gets_its_own_collection(tmp_path: Path) -> None:
    a = HashingTestEmbedder(fingerprint="aaaa00000001")
    b = HashingTestEmbedder(fingerprint="bbbb00000002")
    assert collection_name(a.spec) != collection_name(b.spec)
    client = QdrantClient(":memory:")
    with DocsIndex.open(StoreSettings(), a.spec, client=client) as first:
        first.index_version("16.2.0", corpus("16.2.0"), a)
        second = DocsIndex.open(StoreSettings(), b.spec, client=client)
        assert second.versions() == []
        with pytest.raises(ProfileMismatchError):
            second.index_version("16.2.0", corpus("16.2.0"), a)
        assert {s.collection for s in second.stats()} == {first.collection, second.collection}


def test_point_ids_ignore_the_version() -> None:
    older, newer = corpus("16.2.0")[0], corpus("16.4.6")[0]
    assert point_id(older) == point_id(newer)
    assert point_id(older) != point_id(replace(older, text=older.text + "!"))


def test_server_collections_get_the_configured_shards_and_replicas(
    embedder: HashingTestEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = QdrantClient(":memory:")
    created: dict[str, dict[str, Any]] = {}
    real_create = spy.create_collection

    def remember(collection_name: str, **kwargs: Any) -> bool:
        created[collection_name] = kwargs
        return real_create(collection_name, **kwargs)

    monkeypatch.setattr(spy, "create_collection", remember)
    settings = StoreSettings(url="http://qdrant.example:6333", shard_number=3, replication_factor=2)
    index = DocsIndex(settings, embedder.spec, client=spy)

    index.index_version("16.2.0", corpus("16.2.0"), embedder)

    assert set(created) == {MANIFEST_COLLECTION, index.collection}
    for kwargs in created.values():
        assert (kwargs["shard_number"], kwargs["replication_factor"]) == (3, 2)
    sections = created[index.collection]
    assert sections["vectors_config"]["text"].size == embedder.spec.dense_dim
    assert sections["sparse_vectors_config"]["sparse"].modifier == "idf"
    assert index.stats()[0].location == "http://qdrant.example:6333"


def test_a_second_writer_waits_then_gives_up_naming_the_first(
    embedder: HashingTestEmbedder, tmp_path: Path
) -> None:
    told: list[str] = []
    settings = StoreSettings(path=tmp_path / "qdrant", lock_timeout_seconds=0.5)
    holder_script = (
        "import sys, time; from pathlib import Path; "
        "from raggin_lsp.store.locking import writer_lock\n"
        "with writer_lock(Path(sys.argv[1]), timeout_seconds=1):\n"
        "    print('locked', flush=True); time.sleep(30)"
    )
    first = subprocess.Popen(
        [sys.executable, "-c", holder_script, str(settings.folder), "index", "16.4.6"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert first.stdout is not None
        assert first.stdout.readline().strip() == "locked"
        with (
            DocsIndex.open(settings, embedder.spec, on_wait=told.append) as index,
            pytest.raises(IndexBusyError, match=f"Process {first.pid} .*index 16.4.6"),
        ):
            index.index_version("16.2.0", corpus("16.2.0"), embedder)
    finally:
        first.kill()
        first.wait()
    assert len(told) == 1
    assert told[0].startswith(f"process {first.pid} (")
    assert told[0].endswith(f"is writing to the index in {settings.folder}; waiting for it")
    # A killed holder releases the lock with its process: the next writer goes ahead.
    with DocsIndex.open(settings, embedder.spec) as index:
        index.index_version("16.2.0", corpus("16.2.0"), embedder)
        assert index.versions() == ["16.2.0"]


def test_a_reader_sees_a_completed_write_without_reopening(
    embedder: HashingTestEmbedder, tmp_path: Path
) -> None:
    settings = StoreSettings(path=tmp_path / "qdrant")
    with (
        DocsIndex.open(settings, embedder.spec) as reader,
        DocsIndex.open(settings, embedder.spec) as writer,
    ):
        assert reader.versions() == []
        writer.index_version("16.2.0", corpus("16.2.0"), embedder)
        assert reader.versions() == ["16.2.0"]
        assert search(reader, embedder, "route group", "16.2.0", top_k=1)

        changed = [replace(s, text=s.text + " (changed)") for s in corpus("16.4.6")]
        with pytest.raises(IndexInterrupted):
            writer.index_version("16.4.6", changed, embedder, should_stop=lambda: True)
        assert reader.versions() == ["16.2.0"]

        writer.remove_version("16.2.0")
        assert reader.versions() == []

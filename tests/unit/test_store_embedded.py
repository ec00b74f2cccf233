"""The embedded Qdrant Edge index as a user meets it: damage, migration, a full disk."""

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from raggin_lsp.retrieve.search import search
from raggin_lsp.store import DocsIndex, IndexProgress, StoreSettings
from raggin_lsp.store.embedded import STAGING, ProfileFolder, copy_shard
from raggin_lsp.store.migrate import BACKUP
from raggin_lsp.store.model import IndexDamagedError, IndexInterrupted, IndexWriteError
from tests.support.small_disk import FILLER, fill, small_disk
from tests.unit.store_doubles import HashingTestEmbedder, corpus


@pytest.fixture
def embedder() -> HashingTestEmbedder:
    return HashingTestEmbedder()


def _indexed(folder: Path, embedder: HashingTestEmbedder, **settings: int) -> None:
    with DocsIndex.open(StoreSettings(path=folder, **settings), embedder.spec) as index:
        index.index_version("16.2.0", corpus("16.2.0"), embedder)


def test_a_damaged_shard_is_reported_with_its_path_and_the_fix(
    embedder: HashingTestEmbedder, tmp_path: Path
) -> None:
    folder = tmp_path / "index"
    _indexed(folder, embedder)
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as index:
        generation = ProfileFolder(folder, index.collection).current()
    assert generation is not None
    for segment in (generation / "shard" / "segments").iterdir():
        (segment / "segment.json").write_text("{ not json")

    with (
        DocsIndex.open(StoreSettings(path=folder), embedder.spec) as index,
        pytest.raises(IndexDamagedError) as raised,
    ):
        index.versions()
    message = str(raised.value)
    assert str(generation) in message
    assert "raggin-lsp index VERSION" in message
    assert "Traceback" not in message


def test_the_cli_reports_a_damaged_index_in_one_line_without_a_traceback(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    (folder / "raggin_light_0123456789ab" / "g00000001" / "shard").mkdir(parents=True)
    (folder / "raggin_light_0123456789ab" / "g00000001" / "manifest.json").write_text("garbage")
    result = subprocess.run(
        [sys.executable, "-m", "raggin_lsp", "stats", "--qdrant-path", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "manifest.json" in result.stderr
    assert "raggin-lsp index" in result.stderr


def test_an_unfinished_job_that_cannot_be_resumed_is_redone_and_nothing_complete_is_lost(
    embedder: HashingTestEmbedder, tmp_path: Path
) -> None:
    folder = tmp_path / "index"
    _indexed(folder, embedder)
    notices: list[str] = []
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec, on_wait=notices.append) as index:
        staging = ProfileFolder(folder, index.collection).root / STAGING
        (staging / "shard").mkdir(parents=True)  # a half-written staging area
        (staging / "manifest.json").write_text('{"collection": "x"')
        report = index.index_version("16.4.6", corpus("16.4.6"), embedder)

        assert report.reused == 6  # the complete 16.2.0 points were kept and reused
        assert index.versions() == ["16.2.0", "16.4.6"]
    assert any("discarding an unfinished write job" in notice for notice in notices)


def test_an_interrupted_job_is_listed_as_incomplete_with_the_command_that_finishes_it(
    embedder: HashingTestEmbedder, tmp_path: Path
) -> None:
    folder = tmp_path / "index"
    _indexed(folder, embedder)
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as index:
        calls = iter(range(100))
        with pytest.raises(IndexInterrupted):
            index.index_version(
                "16.4.6",
                [replace(s, text=s.text + " new") for s in corpus("16.4.6")],
                embedder,
                batch_size=2,
                should_stop=lambda: next(calls) >= 1,
            )
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as reader:
        assert reader.versions() == ["16.2.0"]
        (incomplete,) = [i for i in reader.version_infos() if not i.complete]
        assert incomplete.version == "16.4.6"
        with pytest.raises(Exception, match=r"raggin-lsp index 16\.4\.6"):
            reader.require_version("16.4.6")


def test_an_index_from_the_previous_release_is_migrated_without_embedding_again(
    embedder: HashingTestEmbedder, tmp_path: Path
) -> None:
    folder = tmp_path / "qdrant"
    # The previous release wrote the embedded index with qdrant-client's local mode.
    with DocsIndex.open(
        StoreSettings(path=folder), embedder.spec, client=QdrantClient(path=str(folder))
    ) as old:
        old.index_version("16.2.0", corpus("16.2.0"), embedder)
        stopped = iter(range(100))
        with pytest.raises(IndexInterrupted):
            old.index_version(
                "16.4.6",
                [replace(s, text=s.text + " new") for s in corpus("16.4.6")],
                embedder,
                batch_size=1,
                should_stop=lambda: next(stopped) >= 2,
            )
        before = [hit.url_path for hit in search(old, embedder, "route group", "16.2.0")]
    assert (folder / "meta.json").exists()
    embedded_before = len(embedder.embedded_texts)

    notices: list[str] = []
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec, on_wait=notices.append) as new:
        assert new.versions() == ["16.2.0"]
        assert [i.version for i in new.version_infos() if not i.complete] == ["16.4.6"]
        assert [hit.url_path for hit in search(new, embedder, "route group", "16.2.0")] == before
        (stats,) = new.stats()
        assert stats.points == 8  # 6 of 16.2.0 and 2 stored by the interrupted job
        assert len(embedder.embedded_texts) == embedded_before  # nothing embedded again
        report = new.index_version(
            "16.4.6", [replace(s, text=s.text + " new") for s in corpus("16.4.6")], embedder
        )
    assert report.reused == 2  # the interrupted job's points came along
    assert not (folder / "meta.json").exists()
    assert (folder / BACKUP / "meta.json").exists()
    assert any("migrated 8 points" in notice for notice in notices)


def test_a_full_disk_is_reported_loses_nothing_complete_and_the_rerun_resumes(
    embedder: HashingTestEmbedder, tmp_path: Path
) -> None:
    with small_disk(tmp_path / "disk", 256) as disk:
        settings = StoreSettings(path=disk / "index", min_free_bytes=8 * 2**20)
        _indexed(settings.folder, embedder, min_free_bytes=settings.min_free_bytes)
        filler = disk / FILLER
        changed = [replace(s, text=s.text + " new") for s in corpus("16.4.6")]

        def fill_the_disk(progress: IndexProgress) -> None:
            if progress.embedded == 2:
                fill(disk, leave=4 * 2**20)

        with (
            DocsIndex.open(settings, embedder.spec) as editor,  # open before the disk filled
            DocsIndex.open(settings, embedder.spec) as index,
        ):
            assert editor.versions() == ["16.2.0"]
            with pytest.raises(IndexWriteError, match="disk is full") as raised:
                index.index_version(
                    "16.4.6", changed, embedder, batch_size=1, progress=fill_the_disk
                )
            assert "unharmed" in str(raised.value)
            assert editor.versions() == ["16.2.0"]
            top = search(editor, embedder, "route group", "16.2.0", top_k=1)[0]
            assert top.url_path == "/docs/app/route-groups"
            with (
                DocsIndex.open(settings, embedder.spec) as late,
                pytest.raises(IndexWriteError, match="not enough free disk space"),
            ):
                late.versions()

        filler.unlink()
        with DocsIndex.open(settings, embedder.spec) as index:
            report = index.index_version("16.4.6", changed, embedder)
            assert report.reused >= 2
            assert index.versions() == ["16.2.0", "16.4.6"]


def test_a_full_disk_while_importing_keeps_complete_versions_and_the_import_incomplete(
    embedder: HashingTestEmbedder, tmp_path: Path
) -> None:
    export = tmp_path / "next-16.4.6.raggin.gz"
    changed = [replace(s, text=s.text + " new") for s in corpus("16.4.6")]
    with DocsIndex.open(StoreSettings(path=tmp_path / "source"), embedder.spec) as source:
        source.index_version("16.4.6", changed, embedder)
        source.export_version("16.4.6", export)
    with small_disk(tmp_path / "disk", 256) as disk:
        settings = StoreSettings(path=disk / "index", min_free_bytes=8 * 2**20)
        _indexed(settings.folder, embedder, min_free_bytes=settings.min_free_bytes)
        questions = ("route group", "revalidatePath", "getServerSideProps")

        def filled_after_the_first_batch(progress: IndexProgress) -> None:
            if progress.done == 1:
                fill(disk, leave=4 * 2**20)

        with DocsIndex.open(settings, embedder.spec) as index:
            before = [search(index, embedder, q, "16.2.0") for q in questions]
            with pytest.raises(IndexWriteError) as raised:
                index.import_file(export, batch_size=1, progress=filled_after_the_first_batch)
            # The process that hit the full disk still answers as before.
            assert index.versions() == ["16.2.0"]
            assert [search(index, embedder, q, "16.2.0") for q in questions] == before
        message = str(raised.value)
        assert "the disk is full" in message
        assert str(settings.folder) in message
        assert "MB are free" in message
        assert "unharmed" in message

        (disk / FILLER).unlink()
        with DocsIndex.open(settings, embedder.spec) as index:
            assert index.versions() == ["16.2.0"]
            assert [(i.version, i.complete) for i in index.version_infos()] == [
                ("16.2.0", True),
                ("16.4.6", False),
            ]
            assert [search(index, embedder, q, "16.2.0") for q in questions] == before
        with DocsIndex.open(settings, embedder.spec) as index:
            assert index.import_file(export).version == "16.4.6"  # the rerun finishes it
        with DocsIndex.open(settings, embedder.spec) as index:
            assert index.versions() == ["16.2.0", "16.4.6"]


def test_push_copies_a_version_to_a_server_without_embedding_again(
    embedder: HashingTestEmbedder, tmp_path: Path
) -> None:
    folder = tmp_path / "index"
    _indexed(folder, embedder)
    embedded = len(embedder.embedded_texts)
    with (
        DocsIndex.open(StoreSettings(path=folder), embedder.spec) as local,
        DocsIndex.open(StoreSettings(), embedder.spec, client=QdrantClient(":memory:")) as server,
    ):
        report = local.push_version("16.2.0", server)
        assert (report.sections_total, report.embedded) == (6, 6)
        assert server.versions() == ["16.2.0"]
        for question in ("route group", "getServerSideProps", "revalidatePath"):
            # Ties (this corpus has many) may come in either order from the two engines.
            mine = search(local, embedder, question, "16.2.0", fusion="rrf", top_k=6)
            theirs = search(server, embedder, question, "16.2.0", fusion="rrf", top_k=6)
            assert {r.url for r in mine} == {r.url for r in theirs}
            assert [r.score for r in mine] == pytest.approx([r.score for r in theirs], abs=1e-4)
    assert len(embedder.embedded_texts) == embedded


def test_the_cli_explains_an_unreachable_server_without_a_traceback(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "raggin_lsp",
            "stats",
            "--profile",
            "light",
            "--qdrant-url",
            "http://127.0.0.1:9",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "Cannot reach the Qdrant server" in result.stderr


def test_a_readers_copy_leaves_the_logs_closed_segments_behind(tmp_path: Path) -> None:
    """Edge reads a closed log segment whole on opening: 32 MiB resident in every reader
    for operations the shard applied long ago. Writers keep the whole log."""
    shard = tmp_path / "shard"
    (shard / "wal").mkdir(parents=True)
    (shard / "segments" / "s1").mkdir(parents=True)
    for name in ("closed-0", "open-1", "first-index"):
        (shard / "wal" / name).write_bytes(b"log")
    (shard / "segments" / "s1" / "closed-0").write_bytes(b"points")  # not the log

    copy_shard(shard, tmp_path / "reader", reader=True)
    copy_shard(shard, tmp_path / "writer")

    assert sorted(p.name for p in (tmp_path / "reader" / "wal").iterdir()) == [
        "first-index",
        "open-1",
    ]
    assert (tmp_path / "reader" / "segments" / "s1" / "closed-0").read_bytes() == b"points"
    assert (tmp_path / "writer" / "wal" / "closed-0").is_file()


def test_a_new_shard_maps_its_dense_vectors_instead_of_loading_them_whole(
    tmp_path: Path, embedder: HashingTestEmbedder
) -> None:
    """Edge loads an in-memory vector store a 32 MiB chunk at a time, holes included:
    64 MB resident per reader for 12 MB of vectors. Mapped, only what searches read is."""
    import json

    from raggin_lsp.store.edge import EdgeCollection

    EdgeCollection.create(tmp_path / "shard", embedder.spec).close()

    (segment,) = (tmp_path / "shard" / "segments").glob("*/segment.json")
    vectors = json.loads(segment.read_text(encoding="utf-8"))["config"]["vector_data"]
    assert {name: config["storage_type"] for name, config in vectors.items()} == {
        "text": "ChunkedMmap",
        "code": "ChunkedMmap",
    }

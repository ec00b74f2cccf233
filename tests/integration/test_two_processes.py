"""Two processes on one embedded index: readers search while a writer writes; a writer
killed with SIGKILL loses nothing that was complete and the next run finishes the job."""

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

from raggin_lsp.errors import NotIndexedError
from raggin_lsp.retrieve.search import search
from raggin_lsp.store import DocsIndex, IndexProgress, StoreSettings
from tests.unit.store_doubles import HashingTestEmbedder, LexicalHashingTestEmbedder, corpus

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")

READER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from raggin_lsp.retrieve.search import search
    from raggin_lsp.store import DocsIndex, StoreSettings
    from tests.unit.store_doubles import HashingTestEmbedder

    folder, log, wanted = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    embedder = HashingTestEmbedder()
    deadline = time.monotonic() + 60
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as index:
        while time.monotonic() < deadline:
            hits = search(index, embedder, "route group parentheses", "16.2.0", top_k=1)
            versions = index.versions()
            with log.open("a") as out:
                out.write(json.dumps({"top": hits[0].url_path, "versions": versions}) + "\\n")
            if wanted in versions:
                sys.exit(0)
            time.sleep(0.05)
    sys.exit(3)
    """
)

WRITER = textwrap.dedent(
    """
    import sys, time
    from dataclasses import replace
    from pathlib import Path
    from raggin_lsp.store import DocsIndex, StoreSettings
    from tests.unit.store_doubles import HashingTestEmbedder, corpus

    class Slow(HashingTestEmbedder):
        def embed_documents(self, texts, *, progress=None):
            time.sleep(0.3)
            return super().embed_documents(texts, progress=progress)

    folder = Path(sys.argv[1])
    embedder = Slow()
    sections = [replace(s, text=s.text + " in 16.4.6") for s in corpus("16.4.6")]
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as index:
        index.index_version(
            "16.4.6", sections, embedder, batch_size=1,
            progress=lambda p: print("progress", p.embedded, flush=True),
        )
    print("finished", flush=True)
    """
)


def _spawn(script: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _lines(log: Path) -> list[dict[str, object]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def _wait_for(condition: object, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_two_readers_search_while_a_writer_indexes(tmp_path: Path) -> None:
    folder = tmp_path / "qdrant"
    embedder = HashingTestEmbedder()
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as index:
        index.index_version("16.2.0", corpus("16.2.0"), embedder)

    logs = [tmp_path / "reader-1.log", tmp_path / "reader-2.log"]
    readers = [_spawn(READER, str(folder), str(log), "16.4.6") for log in logs]
    try:
        _wait_for(lambda: all(_lines(log) for log in logs), "both readers to search")
        searched_during_write: list[bool] = []

        def while_writing(progress: IndexProgress) -> None:
            # The writer holds the real folder open right now; both readers must go on.
            if progress.embedded == 2:
                counts = [len(_lines(log)) for log in logs]
                _wait_for(
                    lambda: all(
                        len(_lines(log)) > n + 2 for log, n in zip(logs, counts, strict=True)
                    ),
                    "readers to search during the write",
                )
                searched_during_write.append(True)

        changed = [replace(s, text=s.text + " in 16.4.6") for s in corpus("16.4.6")]
        with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as writer:
            writer.index_version("16.4.6", changed, embedder, batch_size=1, progress=while_writing)

        assert searched_during_write == [True]
        for reader in readers:
            _, err = reader.communicate(timeout=60)
            assert reader.returncode == 0, err
        for log in logs:
            seen = _lines(log)
            assert all(line["top"] == "/docs/app/route-groups" for line in seen)
            assert seen[0]["versions"] == ["16.2.0"]
            assert seen[-1]["versions"] == ["16.2.0", "16.4.6"]
    finally:
        for reader in readers:
            if reader.poll() is None:
                reader.kill()
                reader.wait()


def test_a_writer_killed_mid_index_loses_nothing_complete_and_the_next_run_resumes(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "qdrant"
    embedder = HashingTestEmbedder()
    settings = StoreSettings(path=folder)
    with DocsIndex.open(settings, embedder.spec) as index:
        index.index_version("16.2.0", corpus("16.2.0"), embedder)

    writer = _spawn(WRITER, str(folder))
    try:
        assert writer.stdout is not None
        for line in writer.stdout:
            if line.split() == ["progress", "2"]:
                break
        else:
            pytest.fail(f"the writer ended early: {writer.communicate()[1]}")
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert writer.returncode == -signal.SIGKILL

    changed = [replace(s, text=s.text + " in 16.4.6") for s in corpus("16.4.6")]
    with DocsIndex.open(settings, embedder.spec) as index:
        assert index.versions() == ["16.2.0"]
        assert search(index, embedder, "route group", "16.2.0", top_k=1)[0].url_path == (
            "/docs/app/route-groups"
        )
        report = index.index_version("16.4.6", changed, embedder)

        assert report.sections_total == 6
        assert report.reused >= 2  # stored before the kill, not embedded again
        assert report.embedded == 6 - report.reused
        assert index.versions() == ["16.2.0", "16.4.6"]
        hit = search(index, embedder, "route group", "16.4.6", top_k=1)[0]
        assert hit.text.endswith("in 16.4.6")


SEARCHER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from raggin_lsp.retrieve.search import search
    from raggin_lsp.store import DocsIndex, StoreSettings
    from tests.unit.store_doubles import HashingTestEmbedder

    folder, log = Path(sys.argv[1]), Path(sys.argv[2])
    embedder = HashingTestEmbedder()
    deadline = time.monotonic() + 90
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as index:
        while time.monotonic() < deadline:
            versions = index.versions()
            line = {"versions": versions, "at": time.time()}
            line["old"] = search(index, embedder, "route group", "16.2.0", top_k=1)[0].url_path
            if "16.4.6" in versions:
                line["new"] = search(index, embedder, "route group", "16.4.6", top_k=1)[0].text
            with log.open("a") as out:
                out.write(json.dumps(line) + "\\n")
            if "new" in line:
                sys.exit(0)
            time.sleep(0.05)
    sys.exit(3)
    """
)


def test_three_searchers_and_an_indexer_with_kill_9_at_random_points(tmp_path: Path) -> None:
    """Three search processes (as three editor windows) keep answering while a version is
    indexed; the indexer and one searcher are killed with SIGKILL at random points; the
    rerun resumes, and the survivors see the new version within seconds, without restart."""
    seed = random.randrange(1_000_000)
    rng = random.Random(seed)
    folder = tmp_path / "index"
    embedder = HashingTestEmbedder()
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as index:
        index.index_version("16.2.0", corpus("16.2.0"), embedder)

    logs = [tmp_path / f"searcher-{n}.log" for n in range(3)]
    searchers = [_spawn(SEARCHER, str(folder), str(log)) for log in logs]
    writer = _spawn(WRITER, str(folder))
    try:
        _wait_for(lambda: all(_lines(log) for log in logs), "every searcher to answer")
        kill_writer_after = rng.randint(1, 4)
        assert writer.stdout is not None
        for line in writer.stdout:
            if line.split() == ["progress", str(kill_writer_after)]:
                break
        else:
            pytest.fail(f"seed {seed}: the writer ended early: {writer.communicate()[1]}")
        time.sleep(rng.uniform(0.0, 0.3))  # somewhere inside the next batch
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
        chosen = rng.randrange(3)
        victim = searchers.pop(chosen)
        logs.pop(chosen)
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=30)

        counts = [len(_lines(log)) for log in logs]
        _wait_for(
            lambda: all(len(_lines(log)) > n + 3 for log, n in zip(logs, counts, strict=True)),
            f"seed {seed}: the survivors to keep answering after both kills",
        )

        rerun = _spawn(WRITER, str(folder))
        out, err = rerun.communicate(timeout=120)
        assert rerun.returncode == 0, f"seed {seed}: {err}"
        finished_at = time.time()
        assert "finished" in out
        for searcher in searchers:
            _, err = searcher.communicate(timeout=60)
            assert searcher.returncode == 0, f"seed {seed}: {err}"
    finally:
        for process in [*searchers, writer]:
            if process.poll() is None:
                process.kill()
                process.wait()

    for log in logs:
        seen = _lines(log)
        assert all(line["old"] == "/docs/app/route-groups" for line in seen), seed
        assert all("16.2.0" in line["versions"] for line in seen), seed
        assert seen[-1]["new"].endswith("in 16.4.6"), seed
        first_new = next(line["at"] for line in seen if "16.4.6" in line["versions"])
        assert first_new - finished_at < 5.0, seed
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as index:
        assert index.versions() == ["16.2.0", "16.4.6"]
        (stats,) = index.stats()
        assert stats.points == 12  # 6 sections per version, every one changed in 16.4.6


LEXICAL_WRITER = textwrap.dedent(
    """
    import sys, time
    from dataclasses import replace
    from pathlib import Path
    from raggin_lsp.store import DocsIndex, StoreSettings
    from tests.unit.store_doubles import LexicalHashingTestEmbedder, corpus

    class Slow(LexicalHashingTestEmbedder):
        def embed_documents(self, texts, *, progress=None):
            time.sleep(0.3)
            return super().embed_documents(texts, progress=progress)

    folder = Path(sys.argv[1])
    embedder = Slow()
    sections = [replace(s, text=s.text + " in 16.4.6") for s in corpus("16.4.6")]
    with DocsIndex.open(StoreSettings(path=folder), embedder.spec) as index:
        index.index_version(
            "16.4.6", sections, embedder, batch_size=1, publish_seconds=0.0,
            progress=lambda p: print("progress", p.phase, p.embedded, flush=True),
        )
    print("finished", flush=True)
    """
)


def test_a_writer_killed_in_the_dense_pass_leaves_the_version_searchable_and_resumable(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "qdrant"
    embedder = LexicalHashingTestEmbedder()
    settings = StoreSettings(path=folder)
    with DocsIndex.open(settings, embedder.spec) as index:
        index.index_version("16.2.0", corpus("16.2.0"), embedder)

    writer = _spawn(LEXICAL_WRITER, str(folder))
    try:
        assert writer.stdout is not None
        for line in writer.stdout:
            if line.split() == ["progress", "dense", "2"]:
                break
        else:
            pytest.fail(f"the writer ended early: {writer.communicate()[1]}")
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert writer.returncode == -signal.SIGKILL

    changed = [replace(s, text=s.text + " in 16.4.6") for s in corpus("16.4.6")]
    with DocsIndex.open(settings, embedder.spec) as index:
        assert index.versions() == ["16.2.0"]
        info = index.version_info("16.4.6")
        assert info is not None
        assert info.stage.startswith("lexical only, dense ")
        assert info.dense >= 1
        with pytest.raises(NotIndexedError, match=r"raggin-lsp index 16\.4\.6"):
            index.require_version("16.4.6")
        hit = search(index, embedder, "route group", "16.4.6", top_k=1)[0]
        assert hit.text.endswith("in 16.4.6")

        sparse_before = len(embedder.sparse_texts)
        report = index.index_version("16.4.6", changed, embedder)

        assert len(embedder.sparse_texts) == sparse_before  # no lexical pass again
        assert report.reused >= 2  # dense vectors stored before the kill
        assert report.embedded == 6 - report.reused
        assert index.versions() == ["16.2.0", "16.4.6"]

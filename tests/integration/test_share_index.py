"""One real round trip of a shared index, as a team would do it: `raggin-lsp export` on
the 16.2.0 light index, served over HTTP on 127.0.0.1, `raggin-lsp index 16.2.0 --from URL`
into an empty index; then what `stats` shows, and the refusals a user can meet."""

import functools
import gzip
import http.server
import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from raggin_lsp import paths
from tests.conftest import RAGGIN
from tests.support.small_disk import small_disk

pytestmark = [pytest.mark.slow]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RAGGIN, *args], capture_output=True, text=True, timeout=600, check=False
    )


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def serve() -> Iterator[functools.partial[str]]:
    servers: list[http.server.ThreadingHTTPServer] = []

    def url_of(file: Path) -> str:
        handler = functools.partial(_Quiet, directory=str(file.parent))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/{file.name}"

    yield functools.partial(url_of)
    for server in servers:
        server.shutdown()
        server.server_close()


def test_a_real_index_travels_by_url_and_bad_files_are_refused(
    writable_light_index: Path, tmp_path: Path, serve: functools.partial[str]
) -> None:
    export = tmp_path / "next-16.2.0-light.raggin.gz"
    made = _cli(
        "export",
        "16.2.0",
        str(export),
        "--profile",
        "light",
        "--qdrant-path",
        str(writable_light_index),
    )
    assert made.returncode == 0, made.stderr
    assert "Exported" in made.stdout

    fresh = tmp_path / "fresh"
    light = ["--profile", "light", "--qdrant-path", str(fresh)]
    imported = _cli("index", "16.2.0", "--from", serve(export), *light)
    assert imported.returncode == 0, imported.stderr
    assert "checksum verified, nothing embedded" in imported.stdout

    stats = _cli("stats", "--json", *light)
    assert stats.returncode == 0, stats.stderr
    (mine,) = [s for s in json.loads(stats.stdout) if s["versions"]]
    assert list(mine["versions"]) == ["16.2.0"]
    assert mine["incomplete"] == []
    before = _cli(
        "stats", "--json", "--profile", "light", "--qdrant-path", str(writable_light_index)
    )
    (theirs,) = [s for s in json.loads(before.stdout) if s["versions"]]
    assert mine["versions"] == theirs["versions"]

    found = _cli("search", "route groups", "--version", "16.2.0", "--json", "-q", *light)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)

    wrong_version = _cli("index", "16.4.6", "--from", str(export), *light)
    assert wrong_version.returncode == 1
    assert "holds the Next.js 16.2.0 docs, not 16.4.6" in wrong_version.stderr

    other_profile = _cli(
        "import", str(export), "--profile", "bge-m3", "--qdrant-path", str(tmp_path / "bge")
    )
    assert other_profile.returncode == 1
    assert "'light'" in other_profile.stderr
    assert "'bge-m3'" in other_profile.stderr
    assert "--profile light" in other_profile.stderr

    with gzip.open(export, "rt", encoding="utf-8") as handle:
        lines = handle.readlines()
    at = lines[1].index('"vector":') + 20
    lines[1] = lines[1][:at] + ("A" if lines[1][at] != "A" else "B") + lines[1][at + 1 :]
    with gzip.open(export, "wt", encoding="utf-8") as handle:
        handle.writelines(lines)
    damaged = _cli(
        "index",
        "16.2.0",
        "--from",
        str(export),
        "--profile",
        "light",
        "--qdrant-path",
        str(tmp_path / "other"),
    )
    assert damaged.returncode == 1
    assert "does not match its sha256 checksum" in damaged.stderr
    assert "nothing was imported" in damaged.stderr
    after = _cli("stats", "--json", *light)
    assert json.loads(after.stdout) == json.loads(stats.stdout)


def test_a_full_disk_during_an_import_says_what_to_free_and_exits_non_zero(
    writable_light_index: Path, tmp_path: Path
) -> None:
    export = tmp_path / "next-16.2.0-light.raggin.gz"
    made = _cli(
        "export",
        "16.2.0",
        str(export),
        "--profile",
        "light",
        "--qdrant-path",
        str(writable_light_index),
    )
    assert made.returncode == 0, made.stderr
    # The whole import takes ~85 MB; writers stop while less than 64 MB is free.
    with small_disk(tmp_path / "disk", 120) as disk:
        index = disk / "index"
        light = ["--profile", "light", "--qdrant-path", str(index)]
        imported = _cli("index", "16.2.0", "--from", str(export), "-q", *light)
        stats = _cli("stats", "--json", *light)

    assert imported.returncode == 1
    assert "Traceback" not in imported.stderr
    message = imported.stderr
    assert "the disk is full" in message
    assert str(index) in message
    assert "MB are free" in message
    if paths.docs_cache_dir().is_dir():  # the tests' download cache
        assert f"downloaded Next.js docs in {paths.docs_cache_dir()}" in message
    assert stats.returncode == 0, stats.stderr
    (mine,) = [s for s in json.loads(stats.stdout) if s["incomplete"]]
    assert mine["incomplete"] == ["16.2.0"]
    assert mine["versions"] == {}

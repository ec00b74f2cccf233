"""The ``versions`` and ``docs`` commands of the raggin-lsp CLI, as a user runs them."""

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from raggin_lsp.cli import ProgressBar, main
from raggin_lsp.corpus import versions
from tests.support.npm_fake import (
    FakeHost,
    fake_host,
    npm_tarball,
    registry_metadata,
    write_files,
)

DOCS = {
    "index.md": "---\ntitle: Next.js Docs\n---\n\nWelcome to the docs.\n",
    "01-app/01-getting-started/01-installation.md": (
        "---\ntitle: Installation\ndescription: Set up a project.\n---\n\n"
        "Start here.\n\n## Quick start\n\n"
        '```bash filename="Terminal"\nnpx create-next-app@latest\n```\n\n'
        "## System requirements\n\nNode.js 20.9 or later.\n"
    ),
}
TARBALL = npm_tarball("16.4.6", DOCS)


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHost]:
    monkeypatch.setenv("RAGGIN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(versions, "snapshot_paths", lambda: [tmp_path / "no-snapshot.yaml"])
    monkeypatch.chdir(tmp_path)  # no node_modules/next in the working folder
    with fake_host() as host:
        tarballs = {"16.4.6": TARBALL, "16.4.5": TARBALL, "15.5.9": b""}
        host.serve_json("/next", registry_metadata(host.base_url, tarballs))
        host.routes["/next/-/next-16.4.6.tgz"] = TARBALL
        host.routes["/next/-/next-16.4.5.tgz"] = TARBALL + b"tampered"
        monkeypatch.setenv("RAGGIN_NPM_REGISTRY", host.base_url)
        yield host


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_versions_json_marks_cached_ones(
    registry: FakeHost, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "docs", "fetch", "16.4.6", "--quiet")[0] == 0
    code, out, _ = run(capsys, "versions", "--json")
    assert code == 0
    listing = json.loads(out)
    assert listing["latest"] == "16.4.6"
    assert [(v["version"], v["source"], v["cached"]) for v in listing["versions"]] == [
        ("16.4.6", "npm-bundled", True),
        ("16.4.5", "npm-bundled", False),
        ("15.5.9", "github-tag", False),
    ]


def test_versions_text_groups_by_minor(
    registry: FakeHost, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "docs", "fetch", "16.4.6", "--quiet")
    code, out, _ = run(capsys, "versions")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("Next.js releases: 3, latest 16.4.6")
    assert "16.4   npm-bundled  16.4.6* 16.4.5" in lines
    assert "15.5   github-tag   15.5.9" in lines


def test_refresh_snapshot_writes_both_copies(
    registry: FakeHost,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    packaged = tmp_path / "package-data" / "versions.yaml"
    monkeypatch.setattr(versions, "packaged_snapshot_path", lambda: packaged)
    target = tmp_path / "corpus" / "versions.yaml"
    code, _, err = run(capsys, "versions", "--refresh-snapshot", str(target))
    assert code == 0
    assert "Wrote 3 releases" in err
    for path in (target, packaged):
        loaded = versions.load_snapshot([path])
        assert loaded is not None
        assert loaded.versions == ["15.5.9", "16.4.5", "16.4.6"]


def test_docs_fetch_latest(registry: FakeHost, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "docs", "fetch", "latest")
    assert code == 0
    assert "Next.js 16.4.6: 2 docs files in" in out
    assert err == ""  # stderr is no terminal here: no progress bar


def test_docs_fetch_from_a_folder(
    registry: FakeHost, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_files(tmp_path / "mydocs", DOCS)
    code, out, _ = run(capsys, "docs", "fetch", "16.4.6", "--from", str(folder))
    assert code == 0
    assert f"(from path: {folder})" in out
    assert registry.paths_requested() == []


@pytest.mark.parametrize(
    ("argv", "exit_code", "message"),
    [
        pytest.param(
            ["docs", "fetch", "16.4.99"],
            1,
            "Next.js 16.4.99 is not a release; nearest: 16.4.6, 16.4.5",
            id="unknown-version",
        ),
        pytest.param(
            ["docs", "fetch", "^17"], 1, "No Next.js release satisfies '^17'", id="empty-range"
        ),
        pytest.param(
            ["docs", "fetch", "16.4.5"], 1, "does not match the one the npm", id="checksum"
        ),
        pytest.param(["docs", "fetch"], 2, "the following arguments are required", id="usage"),
        pytest.param(["docs", "sections"], 2, "required: VERSION", id="usage-sections"),
        pytest.param(["nonsense"], 2, "invalid choice", id="unknown-command"),
    ],
)
def test_errors_are_one_clear_line(
    registry: FakeHost,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    exit_code: int,
    message: str,
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == exit_code
    assert message in err
    assert "Traceback" not in err
    assert out == ""


def test_docs_sections_json_is_what_gets_embedded(
    registry: FakeHost, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "docs", "sections", "16.4.6", "--json", "--quiet")
    assert code == 0
    sections = json.loads(out)
    by_anchor = {section["anchor"]: section for section in sections}
    quick = by_anchor["quick-start"]
    assert quick["version"] == "16.4.6"
    assert quick["url_path"] == "/docs/app/getting-started/installation"
    assert quick["heading_path"] == ["Installation", "Quick start"]
    assert quick["code"][0]["code"].strip() == "npx create-next-app@latest"
    assert "system-requirements" in by_anchor


def test_docs_sections_text_ends_with_a_summary(
    registry: FakeHost, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["docs", "sections", "16.4.6", "--json", "--quiet"])
    sections = json.loads(capsys.readouterr().out)
    code, out, _ = run(capsys, "docs", "sections", "16.4.6")
    assert code == 0
    pages = len({section["source_path"] for section in sections})
    snippets = sum(len(section["code"]) for section in sections)
    expected = f"Next.js 16.4.6: {pages} pages, {len(sections)} sections, {snippets} code snippets"
    assert out.splitlines()[-1] == expected
    assert "/docs/app/getting-started/installation" in out
    assert "#quick-start  Installation > Quick start" in out


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("quiet", "shown"),
    [pytest.param(False, True, id="terminal"), pytest.param(True, False, id="quiet")],
)
def test_progress_bar_only_on_a_terminal(quiet: bool, shown: bool) -> None:
    terminal = FakeTerminal()
    with ProgressBar("next@16.4.6", quiet=quiet, stream=terminal) as progress:
        for done in (0, 512, 1024):
            progress(done, 1024)
    assert ("next@16.4.6" in terminal.getvalue()) is shown


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path: Path) -> None:
    """``raggin-lsp docs sections ... --json | head``: the pipe closes, the CLI stops quietly."""
    page = "---\ntitle: Page {n}\n---\n\n" + "A paragraph about caching and routing. " * 40
    folder = write_files(
        tmp_path / "docs", {f"01-app/page-{n}.md": page.format(n=n) for n in range(300)}
    )
    env = {**os.environ, "RAGGIN_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "raggin_lsp", "docs", "sections", "16.4.6"]
    with subprocess.Popen(
        [*command, "--from", str(folder), "--json", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        assert process.stdout.read(100)  # what `head -c 100` reads, then it exits
        process.stdout.close()
        errors = process.stderr.read().decode()
        assert process.wait(timeout=60) == 1
    assert "Traceback" not in errors

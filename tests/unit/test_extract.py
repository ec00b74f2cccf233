"""Safe extraction of docs from npm tarballs and GitHub tag archives."""

import io
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from raggin_lsp.corpus.extract import Limits, MissingDocsError, copy_docs_tree, extract_docs
from raggin_lsp.errors import UnsafeArchiveError
from tests.support.npm_fake import github_archive, npm_tarball

DOCS = {
    "index.md": "# Next.js Docs\n",
    "01-app/01-getting-started/01-installation.md": "# Installation\n",
    "02-pages/index.md": "# Pages Router\n",
}

TarBuilder = Callable[[tarfile.TarFile], None]


def _file(name: str, data: bytes = b"# hi\n") -> TarBuilder:
    def add(tar: tarfile.TarFile) -> None:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))

    return add


def _special(name: str, kind: bytes, linkname: str = "") -> TarBuilder:
    def add(tar: tarfile.TarFile) -> None:
        info = tarfile.TarInfo(name)
        info.type = kind
        info.linkname = linkname
        tar.addfile(info)

    return add


def _many(count: int) -> TarBuilder:
    def add(tar: tarfile.TarFile) -> None:
        for index in range(count):
            _file(f"package/dist/docs/page-{index}.md")(tar)

    return add


def build(path: Path, *builders: TarBuilder) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        _file("package/package.json", b'{"name": "next", "version": "16.4.6"}')(tar)
        _file("package/dist/docs/index.md")(tar)
        for add in builders:
            add(tar)
    return path


def files_under(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*") if not path.is_dir()}


def test_npm_tarball_gives_the_docs_tree(tmp_path: Path) -> None:
    archive = tmp_path / "next-16.4.6.tgz"
    archive.write_bytes(npm_tarball("16.4.6", DOCS, extra={"package/dist/docs/logo.png": "png"}))
    report = extract_docs(archive, tmp_path / "entry", layout="npm")
    assert files_under(tmp_path / "entry") == {f"docs/{name}" for name in DOCS}
    assert report.files == len(DOCS)
    assert report.npm_version == "16.4.6"
    assert (tmp_path / "entry/docs/index.md").read_text() == "# Next.js Docs\n"


def test_github_archive_gives_docs_and_errors(tmp_path: Path) -> None:
    archive = tmp_path / "v16.1.0.tar.gz"
    archive.write_bytes(
        github_archive("16.1.0", {"01-app/index.mdx": "# App\n"}, {"no-cache.mdx": "# No Cache\n"})
    )
    report = extract_docs(archive, tmp_path / "entry", layout="github")
    assert files_under(tmp_path / "entry") == {"docs/01-app/index.mdx", "errors/no-cache.mdx"}
    assert report.top_folders == {"next.js-16.1.0"}


def test_links_outside_the_docs_are_skipped(tmp_path: Path) -> None:
    # The next.js repository holds symlinks in its code; only links among docs matter.
    archive = build(
        tmp_path / "a.tgz", _special("package/dist/server/link.js", tarfile.SYMTYPE, "/etc/passwd")
    )
    extract_docs(archive, tmp_path / "entry", layout="npm")
    assert files_under(tmp_path / "entry") == {"docs/index.md"}


@pytest.mark.parametrize(
    ("builder", "limits", "message"),
    [
        pytest.param(
            _file("package/dist/docs/../../../../escaped.md"),
            None,
            "climbs out",
            id="traversal-in-docs",
        ),
        pytest.param(_file("../escaped.md"), None, "climbs out", id="traversal-anywhere"),
        pytest.param(_file("/tmp/raggin-escaped.md"), None, "absolute path", id="absolute"),
        pytest.param(
            _special("package/dist/docs/passwd.md", tarfile.SYMTYPE, "/etc/passwd"),
            None,
            "link",
            id="symlink",
        ),
        pytest.param(
            _special("package/dist/docs/hard.md", tarfile.LNKTYPE, "package/dist/docs/index.md"),
            None,
            "link",
            id="hardlink",
        ),
        pytest.param(
            _special("package/dist/docs/tty.md", tarfile.CHRTYPE), None, "special", id="device"
        ),
        pytest.param(
            _file("package/dist/docs/huge.md", b"x" * 5000),
            Limits(max_total_bytes=4000),
            "more than 4,000 bytes",
            id="oversized-member",
        ),
        pytest.param(_many(5), Limits(max_files=3), "more than 3 docs files", id="too-many-files"),
        pytest.param(_file("package/dist/docs/index.md"), None, "twice", id="duplicate"),
    ],
)
def test_hostile_archives_are_refused(
    tmp_path: Path, builder: TarBuilder, limits: Limits | None, message: str
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    archive = build(work / "hostile.tgz", builder)
    destination = work / "cache" / "entry"
    with pytest.raises(UnsafeArchiveError, match=message):
        extract_docs(archive, destination, layout="npm", limits=limits)
    outside = files_under(tmp_path) - {"work/hostile.tgz"}
    assert all(name.startswith("work/cache/entry/") for name in outside), outside
    assert not Path("/tmp/raggin-escaped.md").exists()


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"this is not an archive at all", id="not-tar"),
        pytest.param(npm_tarball("16.4.6", DOCS)[:300], id="truncated"),
    ],
)
def test_corrupt_archives_are_refused(tmp_path: Path, content: bytes) -> None:
    archive = tmp_path / "broken.tgz"
    archive.write_bytes(content)
    with pytest.raises(UnsafeArchiveError, match="corrupt or not a tar archive"):
        extract_docs(archive, tmp_path / "entry")


def test_a_package_without_docs_says_so(tmp_path: Path) -> None:
    archive = tmp_path / "next-16.1.0.tgz"
    archive.write_bytes(npm_tarball("16.1.0", {}))
    with pytest.raises(MissingDocsError, match=r"holds no Next\.js docs"):
        extract_docs(archive, tmp_path / "entry")


def test_folder_copy_skips_links_and_other_files(tmp_path: Path) -> None:
    source = tmp_path / "docs"
    (source / "01-app").mkdir(parents=True)
    (source / "01-app" / "a.md").write_text("# A\n")
    (source / "notes.txt").write_text("not docs")
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n")
    (source / "linked.md").symlink_to(secret)
    (source / "linked-dir").symlink_to(tmp_path, target_is_directory=True)
    count = copy_docs_tree(source, tmp_path / "copy")
    assert count == 1
    assert files_under(tmp_path / "copy") == {"01-app/a.md"}


def test_folder_copy_respects_the_caps(tmp_path: Path) -> None:
    source = tmp_path / "docs"
    source.mkdir()
    for index in range(4):
        (source / f"{index}.md").write_text("# page\n")
    with pytest.raises(UnsafeArchiveError, match="more than 2 docs files"):
        copy_docs_tree(source, tmp_path / "copy", limits=Limits(max_files=2))

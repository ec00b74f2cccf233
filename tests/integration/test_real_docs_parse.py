"""The parser on the real docs shipped in the next package (16.2.0 and 16.4.6).

The docs come from ``npm pack next@<version>``, cached under
``<cache>/test-downloads`` (~/.cache/raggin unless $RAGGIN_CACHE_DIR) and shared
between runs; the first run downloads about 40 MB per version from the npm registry.
"""

import re
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

from raggin_lsp.corpus.parse import ParsedPage, parse_pages
from raggin_lsp.paths import cache_dir

pytestmark = pytest.mark.network

VERSIONS = ["16.2.0", "16.4.6"]
DOCS_MEMBER = "package/dist/docs/"
_APP_ONLY_BLOCK = re.compile(r"^<AppOnly>\s*$(.*?)^</AppOnly>\s*$", re.S | re.M)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,}).*?^[ \t]*\1[ \t]*$", re.S | re.M)
_CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
_JSX_NOISE = re.compile(
    r"</?(?:AppOnly|PagesOnly|Image|details|summary|FixCard\w*|div|span|Video)\b|\{/\*"
)


def _docs_tree(version: str) -> Path:
    """``<cache>/test-downloads/next-<version>/`` holding ``docs/``; downloaded once."""
    downloads = cache_dir() / "test-downloads"
    root = downloads / f"next-{version}"
    if (root / "docs" / "index.md").is_file():
        return root
    downloads.mkdir(parents=True, exist_ok=True)
    tarball = downloads / f"next-{version}.tgz"
    if not tarball.is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is needed to fetch the Next.js docs for this test")
        subprocess.run(
            [npm, "pack", f"next@{version}", "--pack-destination", str(downloads)],
            check=True,
            capture_output=True,
            timeout=300,
        )
    staging = downloads / f"next-{version}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    with tarfile.open(tarball) as archive:
        members = [m for m in archive.getmembers() if m.name.startswith(DOCS_MEMBER)]
        archive.extractall(staging, members=members, filter="data")
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    (staging / DOCS_MEMBER).rename(root / "docs")
    shutil.rmtree(staging)
    return root


@pytest.fixture(scope="module", params=VERSIONS)
def parsed(request: pytest.FixtureRequest) -> tuple[Path, list[ParsedPage], float]:
    root = _docs_tree(request.param)
    started = time.perf_counter()
    pages = parse_pages(root, request.param)
    return root, pages, time.perf_counter() - started


def _prose(text: str) -> str:
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def _page_text(page: ParsedPage) -> str:
    return " ".join(" ".join(section.text for section in page.sections).split())


def test_every_file_parses_quickly_and_cleanly(
    parsed: tuple[Path, list[ParsedPage], float],
) -> None:
    root, pages, seconds = parsed
    files = sorted(p.relative_to(root / "docs").as_posix() for p in (root / "docs").rglob("*.md"))

    assert sorted(page.page.source_path for page in pages) == files
    assert [warning for page in pages for warning in page.warnings] == []
    # Folder index pages carry only frontmatter (the site lists their children there).
    assert [
        page.page.source_path for page in pages if not page.sections and page.markdown.strip()
    ] == []
    assert seconds < 10, f"parsing took {seconds:.1f} s"


def test_no_section_is_empty_or_noisy(parsed: tuple[Path, list[ParsedPage], float]) -> None:
    _, pages, _ = parsed
    sections = [section for page in pages for section in page.sections]

    assert all(section.text.strip() for section in sections)
    noisy = [(s.source_path, s.anchor) for s in sections if _JSX_NOISE.search(_prose(s.text))]
    assert noisy == []
    assert not [s.source_path for s in sections if "DO NOT EDIT" in _prose(s.text)]


def test_source_stubs_get_the_app_page_without_app_only_text(
    parsed: tuple[Path, list[ParsedPage], float],
) -> None:
    root, pages, _ = parsed
    by_url = {page.page.url_path: page for page in pages}
    stubs = [page for page in pages if page.page.source]
    probes_checked = 0

    assert len(stubs) > 50
    for stub in stubs:
        source_page = by_url["/docs/" + (stub.page.source or "")]
        stub_text = _page_text(stub)
        # Real content, not the stub's comment (two folder indexes are empty at the source).
        assert bool(stub.sections) == bool(source_page.sections), stub.page.source_path
        raw = (root / "docs" / source_page.page.source_path).read_text()
        for probe in _app_only_probes(raw):
            assert probe in _page_text(source_page), (source_page.page.source_path, probe)
            assert probe not in stub_text, (stub.page.source_path, probe)
            probes_checked += 1
    assert probes_checked > 50
    assert sum(len(_page_text(stub)) > 200 for stub in stubs) > 0.9 * len(stubs)


def _app_only_probes(raw: str) -> list[str]:
    """Plain sentences written only inside ``<AppOnly>`` blocks of a source page."""
    outside = _APP_ONLY_BLOCK.sub("", raw)
    probes = []
    for block in _APP_ONLY_BLOCK.findall(raw):
        for line in _FENCE.sub("", block).splitlines():
            line = " ".join(line.split())
            plain = (
                len(line) > 40
                and not re.search(r"[`*_\[\]<>|#{}]", line)
                and not line.startswith(("-", ">"))
            )
            if plain and line[0].isupper() and line not in outside:
                probes.append(line)
    return probes

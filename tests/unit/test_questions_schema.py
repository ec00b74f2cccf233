"""The committed question set: shape, coverage, and (network) gold pages vs the real docs."""

import base64
import hashlib
import io
import json
import re
import tarfile
from collections import Counter

import pytest

from raggin_lsp.corpus.urls import url_path_for
from raggin_lsp.eval.questions import (
    DEFAULT_QUESTIONS_PATH,
    KINDS,
    Question,
    check_against_docs,
    load_questions,
)
from raggin_lsp.paths import cache_dir

DOCS_VERSIONS = ("16.2.0", "16.4.6")
DOCS_PREFIX = "package/dist/docs/"
_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.MULTILINE)


@pytest.fixture(scope="module")
def questions() -> list[Question]:
    return load_questions(DEFAULT_QUESTIONS_PATH)


def test_size_and_coverage(questions: list[Question]) -> None:
    assert len(questions) >= 120
    kinds = Counter(q.kind for q in questions)
    assert set(kinds) == set(KINDS), f"every kind is asked: {kinds}"
    routers = Counter(q.router for q in questions)
    assert routers["pages"] >= 0.2 * len(questions), routers


def test_complex_questions_need_several_pages(questions: list[Question]) -> None:
    complex_questions = [q for q in questions if q.kind == "complex"]
    assert len(complex_questions) >= 30
    for question in complex_questions:
        assert len(question.gold_pages()) >= 2, question.id


def test_version_sensitive_subset(questions: list[Question]) -> None:
    sensitive = [q for q in questions if q.version_sensitive]
    assert len(sensitive) >= 8
    for question in sensitive:
        assert set(question.gold_by_version) >= set(DOCS_VERSIONS), question.id
        assert question.gold_pages("16.2.0") != question.gold_pages("16.4.6"), question.id


def test_questions_are_distinct(questions: list[Question]) -> None:
    texts = Counter(q.question.lower() for q in questions)
    assert [text for text, count in texts.items() if count > 1] == []


def _registry_tarball(version: str) -> bytes:
    httpx = pytest.importorskip("httpx")
    try:
        meta = httpx.get(f"https://registry.npmjs.org/next/{version}", timeout=30).json()
        tarball = httpx.get(meta["dist"]["tarball"], timeout=300, follow_redirects=True)
        tarball.raise_for_status()
    except httpx.HTTPError as exc:
        pytest.skip(f"npm registry not reachable: {exc}")
    algorithm, _, expected = meta["dist"]["integrity"].partition("-")
    digest = base64.b64encode(hashlib.new(algorithm, tarball.content).digest()).decode()
    assert digest == expected, f"next@{version} tarball does not match its integrity"
    return bytes(tarball.content)


def _docs_titles(version: str) -> dict[str, str]:
    """``{url_path: title}`` of the docs shipped in next@version, cached as small JSON."""
    cached = cache_dir() / "eval" / f"next-{version}-titles.json"
    if cached.is_file():
        titles: dict[str, str] = json.loads(cached.read_text(encoding="utf-8"))
        return titles
    titles = {}
    with tarfile.open(fileobj=io.BytesIO(_registry_tarball(version)), mode="r:gz") as archive:
        for member in archive:
            if not (member.isfile() and member.name.startswith(DOCS_PREFIX)):
                continue
            if not member.name.endswith(".md"):
                continue
            handle = archive.extractfile(member)
            assert handle is not None
            text = handle.read().decode("utf-8")
            match = _TITLE.search(text.split("\n---", 1)[0])
            title = match.group(1).strip("'\"") if match else ""
            titles[url_path_for(member.name[len(DOCS_PREFIX) :])] = title
    assert titles, f"next@{version} has no docs"
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(titles, indent=0, sort_keys=True), encoding="utf-8")
    return titles


@pytest.mark.network
def test_gold_pages_exist_and_titles_are_not_quoted(questions: list[Question]) -> None:
    docs = {version: _docs_titles(version) for version in DOCS_VERSIONS}
    assert len(docs["16.4.6"]) == 475
    assert check_against_docs(questions, docs) == []


@pytest.mark.network
def test_version_limited_questions_really_need_the_newer_docs(questions: list[Question]) -> None:
    """A question marked for newer versions should point at pages the older docs lack;
    otherwise the version limit hides a question that could be asked of every version."""
    old = _docs_titles("16.2.0")
    limited = [q for q in questions if q.version is not None and not q.applies_to("16.2.0")]
    assert limited
    for question in limited:
        assert any(page not in old for page in question.gold_pages()), question.id

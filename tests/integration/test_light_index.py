"""The real pipeline on the real Next.js 16.2.0 docs with the offline light profile.

Everything here embeds real docs with a real model: the shared index comes from
``light_index_dir`` (built once through the CLI, see conftest.py).
"""

import json
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from raggin_lsp.assistant import Assistant, AssistantConfig
from raggin_lsp.corpus.fetch import ensure_docs
from raggin_lsp.corpus.parse import parse_docs_tree
from raggin_lsp.corpus.summary import with_page_summaries
from raggin_lsp.embed.loading import load_embedder
from raggin_lsp.errors import NotIndexedError
from tests.conftest import RAGGIN, ROOT

pytestmark = [pytest.mark.network, pytest.mark.slow]


def _assistant(index_dir: Path) -> Assistant:
    return Assistant(AssistantConfig(profile="light", qdrant_path=index_dir))


@pytest.mark.parametrize(
    ("question", "router", "expected_page"),
    [
        pytest.param(
            "How do I revalidate a path on demand?",
            "app",
            "/docs/app/api-reference/functions/revalidatePath",
            id="revalidatePath",
        ),
        pytest.param(
            "read the current url pathname in a client component",
            "app",
            "/docs/app/api-reference/functions/use-pathname",
            id="usePathname",
        ),
        pytest.param(
            "fetch data on each request with getServerSideProps",
            "pages",
            "/docs/pages/building-your-application/data-fetching/get-server-side-props",
            id="getServerSideProps",
        ),
        pytest.param(
            "optimize images with the Image component, width and height",
            "app",
            "/docs/app/api-reference/components/image",
            id="next-image",
        ),
    ],
)
def test_search_finds_the_page_a_developer_needs(
    light_index_dir: Path, question: str, router: str, expected_page: str
) -> None:
    assistant = _assistant(light_index_dir)
    try:
        results = assistant.search(question, "16.2.0", router=router, top_k=5)
    finally:
        assistant.close()
    pages = [result.url_path for result in results]
    assert expected_page in pages, f"top 5 for {question!r}: {pages}"
    best = results[pages.index(expected_page)]
    assert best.version == "16.2.0"
    assert best.url.startswith("https://nextjs.org/docs/")
    assert best.text.strip()


def test_asking_for_more_results_keeps_the_first_ones(light_index_dir: Path) -> None:
    """The editor asks for 5 sections, an agent or `search --top-k 30` for more: the
    sections both see come in the same order (the page-level stages re-score a fixed
    pool, not a list as long as was asked for)."""
    assistant = _assistant(light_index_dir)
    questions = [
        "How do I revalidate a path on demand?",
        "my middleware redirect loops forever on every request, how do I match only /admin",
        "Error: useState only works in Client Components. Add the 'use client' directive",
    ]
    try:
        for question in questions:
            for one_per_page in (False, True):
                ranked = {
                    top_k: [
                        result.url
                        for result in assistant.search(
                            question, "16.2.0", top_k=top_k, one_per_page=one_per_page
                        )
                    ]
                    for top_k in (1, 5, 10, 30)
                }
                assert ranked[5][:1] == ranked[1], question
                assert ranked[10][:5] == ranked[5], question
                assert ranked[30][:10] == ranked[10], question
    finally:
        assistant.close()


def test_router_filter_keeps_pages_router_results_out_of_app_answers(
    light_index_dir: Path,
) -> None:
    assistant = _assistant(light_index_dir)
    try:
        results = assistant.search("data fetching", "16.2.0", router="app", top_k=10)
    finally:
        assistant.close()
    assert results
    assert all(result.router != "pages" for result in results)


def test_an_old_api_name_leads_to_the_page_the_docs_replace_it_with(
    light_index_dir: Path,
) -> None:
    # 16.2.0's API catalog reads "unstable_noStore ... deprecated ... use connection()" from
    # the docs; the Version History tables alone never said so.
    assistant = _assistant(light_index_dir)
    try:
        docs_map = assistant.docs_map("16.2.0")
        results = assistant.search("what replaces unstable_noStore", "16.2.0", top_k=3)
    finally:
        assistant.close()
    connection = "/docs/app/api-reference/functions/connection"
    assert docs_map.pages_for(["unstable_noStore"], old_names=True)[-1] == connection
    assert connection in [result.url_path for result in results]


def test_a_version_that_is_not_indexed_is_refused_with_a_fix(light_index_dir: Path) -> None:
    assistant = _assistant(light_index_dir)
    try:
        with pytest.raises(NotIndexedError, match=r"raggin-lsp index 16\.4\.6"):
            assistant.search("middleware", "16.4.6")
    finally:
        assistant.close()


def _light(index_dir: Path) -> list[str]:
    return ["--profile", "light", "--qdrant-path", str(index_dir)]


def _search_cli(index_dir: Path, question: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*RAGGIN, "search", question, "--version", "16.2.0", "--json", "-q", *_light(index_dir)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_search_the_embedded_index_at_once(light_index_dir: Path) -> None:
    first = _search_cli(light_index_dir, "revalidate a path on demand")
    second = _search_cli(light_index_dir, "useRouter in the pages router")
    outputs = [process.communicate(timeout=300) for process in (first, second)]
    for process, (stdout, stderr) in zip((first, second), outputs, strict=True):
        assert process.returncode == 0, stderr
        results = json.loads(stdout)
        assert results
        for result in results:
            assert {"url", "title", "heading", "version", "score", "text"} <= result.keys()
            assert result["version"] == "16.2.0"
    assert any("revalidatePath" in r["url"] for r in json.loads(outputs[0][0]))


def _content_hashes(version: str) -> set[str]:
    embedder = load_embedder("light")
    sections = parse_docs_tree(
        ensure_docs(version),
        version,
        max_tokens=embedder.spec.chunk_tokens,
        count_tokens=embedder.count_tokens,
    )
    return {section.content_hash for section in with_page_summaries(sections)}


def _stored_points(index_dir: Path) -> int:
    assistant = _assistant(index_dir)
    collection = assistant.index_store.collection
    try:
        (stats,) = [s for s in assistant.index_store.stats() if s.collection == collection]
    finally:
        assistant.close()
    return stats.points


def test_a_killed_index_run_keeps_the_old_version_and_the_next_run_embeds_only_new_sections(
    writable_light_index: Path,
) -> None:
    old, new = _content_hashes("16.2.0"), _content_hashes("16.4.6")
    before = _stored_points(writable_light_index)
    assert before == len(old)

    # Start indexing 16.4.6 and kill -9 it once it has stored a few batches.
    process = subprocess.Popen(
        [
            *RAGGIN,
            "index",
            "16.4.6",
            "--profile",
            "light",
            "--qdrant-path",
            str(writable_light_index),
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=False,
    )
    assert process.stderr is not None
    progress = re.compile(rb"Dense vectors:\s+\d+%\|[^|]*\|\s*(\d+)/(\d+)")
    deadline = time.monotonic() + 900
    seen = b""
    first_done: int | None = None  # sections already stored count as done from the start
    while time.monotonic() < deadline:
        chunk = process.stderr.read1(4096)  # type: ignore[attr-defined]
        if not chunk:
            break
        seen += chunk
        done = [int(match.group(1)) for match in progress.finditer(seen[-4096:])]
        if done and first_done is None:
            first_done = min(done)
        if done and first_done is not None and max(done) >= first_done + 64:
            break
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL, seen[-2000:].decode(errors="replace")

    # The lexical pass stored every section before the dense pass began.
    assert _stored_points(writable_light_index) == len(old | new)
    assistant = _assistant(writable_light_index)
    try:
        assert assistant.indexed_versions() == ["16.2.0"]
        assert assistant.search("revalidatePath", "16.2.0", top_k=3)
        assert assistant.index_stage("16.4.6").startswith("lexical only, dense ")
        lexical = assistant.search("revalidatePath", "16.4.6", top_k=3)
        assert lexical[0].index_stage.startswith("lexical only, dense ")

        report = assistant.index("16.4.6")
        assert sorted(assistant.indexed_versions()) == ["16.2.0", "16.4.6"]
        results = assistant.search("How do I revalidate a path on demand?", "16.4.6")
    finally:
        assistant.close()

    # Dense vectors stored before the kill were kept: the rerun computed only the rest.
    assert report.sections_total == len(new)
    assert report.embedded + report.reused == len(new)
    assert report.reused > len(new & old)
    assert _stored_points(writable_light_index) == len(old | new)
    assert any(r.url_path.endswith("/revalidatePath") for r in results)
    assert all(r.version == "16.4.6" for r in results)

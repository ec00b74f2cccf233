"""A file embedded before the question about it is not embedded again by the question.

The language server embeds open files ahead (``server/context_vectors.py``); the question
then finds its file's vector ready and the same results come back as when it embeds it.
"""

from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from raggin_lsp.assistant import Assistant, AssistantConfig, steering_code
from raggin_lsp.embed.base import Embedding
from raggin_lsp.generate.model import ContextItem
from raggin_lsp.retrieve.search import search as search_with_stages
from raggin_lsp.retrieve.stages import NO_STAGES
from raggin_lsp.store import DocsIndex, StoreSettings
from tests.unit.store_doubles import HashingTestEmbedder, corpus

search = partial(search_with_stages, stages=NO_STAGES)
CODE = "export default async function Page() { await fetch(url, { cache: 'no-store' }) }"


class QueryCountingEmbedder(HashingTestEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []

    def embed_query(self, text: str, *, sparse_text: str | None = None) -> Embedding:
        self.queries.append(text)
        return super().embed_query(text, sparse_text=sparse_text)


@pytest.fixture
def embedder() -> QueryCountingEmbedder:
    return QueryCountingEmbedder()


@pytest.fixture
def index(embedder: QueryCountingEmbedder) -> Iterator[DocsIndex]:
    with DocsIndex.open(StoreSettings(), embedder.spec, client=QdrantClient(":memory:")) as idx:
        idx.index_version("16.2.0", corpus("16.2.0"), embedder)
        yield idx


def test_a_code_vector_given_ahead_ranks_as_the_code_itself(
    index: DocsIndex, embedder: QueryCountingEmbedder
) -> None:
    embedded = search(index, embedder, "opt out of caching", "16.2.0", code=CODE)
    ahead = embedder.embed_query(CODE).dense
    embedder.queries.clear()

    given = search(
        index, embedder, "opt out of caching", "16.2.0", code=CODE, embed_code=lambda _: ahead
    )

    assert [r.url for r in given] == [r.url for r in embedded]
    assert [r.score for r in given] == pytest.approx([r.score for r in embedded])
    assert "code" in given[0].scores  # the code still steered the search
    assert CODE not in embedder.queries


class _AssistantWith(Assistant):
    """An Assistant whose embedding model is the test's (and already loaded)."""

    def __init__(self, embedder: QueryCountingEmbedder, index: DocsIndex) -> None:
        super().__init__(AssistantConfig(profile="light", qdrant_path=Path("unused")))
        self._test_embedder, self._test_index = embedder, index

    @property
    def embedder(self) -> QueryCountingEmbedder:  # type: ignore[override]
        return self._test_embedder

    @property
    def index_store(self) -> DocsIndex:  # type: ignore[override]
        return self._test_index


def test_the_question_finds_its_files_vector_ready(
    index: DocsIndex, embedder: QueryCountingEmbedder
) -> None:
    assistant = _AssistantWith(embedder, index)
    context = [ContextItem("app/page.tsx", CODE, "tsx")]
    assistant.prepare_context(context)  # the server, when the file opened
    embedder.queries.clear()

    for question in ("opt out of caching", "revalidate on demand"):
        assistant.search(question, "16.2.0", code=steering_code(context), stages=NO_STAGES)

    assert embedder.queries == ["opt out of caching", "revalidate on demand"]


def test_only_the_last_few_contexts_are_kept(
    index: DocsIndex, embedder: QueryCountingEmbedder
) -> None:
    from raggin_lsp.assistant import CODE_VECTORS

    assistant = _AssistantWith(embedder, index)
    files = [f"const file{n} = {n}" for n in range(CODE_VECTORS + 1)]
    for text in files:
        assistant.prepare_context([ContextItem("a.ts", text, "ts")])
    embedder.queries.clear()

    assistant.code_vector(files[-1])
    assistant.code_vector(files[0])

    assert embedder.queries == [files[0]]  # the oldest was let go; the newest was kept

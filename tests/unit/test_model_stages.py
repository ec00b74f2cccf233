"""The retrieval stages that need a model beyond the embedder: a cross-encoder reranker
(a tiny one these tests build, run by fastembed) and HyDE through Ollama (the fake one).

Both change what a user sees only when their model is there, and neither makes a
search wait or fail for a model that is missing.
"""

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from raggin_lsp.assistant import Assistant, AssistantConfig
from raggin_lsp.corpus.model import Section
from raggin_lsp.errors import ModelError
from raggin_lsp.generate.model import GenerationSettings
from raggin_lsp.generate.ollama_api import ModelNotInstalledError, OllamaUnreachableError
from raggin_lsp.generate.planning import hypothetical_passage
from raggin_lsp.retrieve.model import SearchResult
from raggin_lsp.retrieve.rerank import CrossEncoderReranker
from raggin_lsp.retrieve.search import search
from raggin_lsp.retrieve.stages import NO_STAGES, StageWeights
from raggin_lsp.store import DocsIndex, StoreSettings
from tests.support.fake_ollama import FakeOllama, FakeScript, closed_port_host
from tests.support.tiny_models import TinyCrossEncoder, build_tiny_cross_encoder
from tests.unit.store_doubles import HashingTestEmbedder

VERSION = "16.4.6"
FUNCTIONS = "api-reference/functions"


def _doc(page: str, title: str, text: str) -> Section:
    return Section(
        version=VERSION,
        source_path=f"app/{page}.md",
        url_path=f"/docs/app/{page}",
        anchor="",
        heading_path=(title,),
        text=text,
        router="app",
    )


DOCS = [
    _doc("guides/forms", "Forms", "save form data after a mutation in a server action"),
    _doc("guides/caching", "Caching", "data is cached after a mutation until it is revalidated"),
    _doc(f"{FUNCTIONS}/revalidatePath", "revalidatePath", "purge the cached data of one path"),
    _doc(f"{FUNCTIONS}/cookies", "cookies", "read the cookies of the incoming request"),
    _doc(f"{FUNCTIONS}/headers", "headers", "read the headers of the incoming request"),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocsIndex]:
    embedder = HashingTestEmbedder()
    with DocsIndex.open(
        StoreSettings(path=tmp_path_factory.mktemp("model-stages")), embedder.spec
    ) as opened:
        opened.index_version(VERSION, DOCS, embedder)
        yield opened


@pytest.fixture(scope="module")
def cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> TinyCrossEncoder:
    # A model that has learnt one thing: passages about purging answer the question.
    return build_tiny_cross_encoder(
        tmp_path_factory.mktemp("cross-encoder"), {"purge": 4.0, "cookies": -1.0, "read": 0.5}
    )


def _pages(index: DocsIndex, question: str, **kwargs: object) -> list[str]:
    results = search(
        index,
        HashingTestEmbedder(),
        question,
        VERSION,
        top_k=5,
        one_per_page=True,
        **kwargs,  # type: ignore[arg-type]
    )
    return [result.url_path.removeprefix("/docs/app/") for result in results]


# ----------------------------------------------------------------- reranking


def test_the_reranker_scores_pairs_as_its_model_computes_them(
    cross_encoder: TinyCrossEncoder,
) -> None:
    reranker = CrossEncoderReranker(str(cross_encoder.folder))
    question = "stale data after a mutation"
    passages = ["purge the cached data of one path", "read the cookies", "nothing known here"]
    scores = reranker.score(question, passages)
    assert scores == pytest.approx([cross_encoder.expected(question, p) for p in passages])
    assert reranker.score(question, []) == []


def test_the_cross_encoder_puts_the_passage_it_prefers_first(
    index: DocsIndex, cross_encoder: TinyCrossEncoder
) -> None:
    question = "data is stale after a mutation in a server action"
    reranker = CrossEncoderReranker(str(cross_encoder.folder))
    fused_only = _pages(index, question, stages=NO_STAGES)
    reranked = _pages(
        index, question, stages=NO_STAGES.with_stage("rerank", True), reranker=reranker
    )
    assert fused_only[0] != f"{FUNCTIONS}/revalidatePath"
    assert reranked[0] == f"{FUNCTIONS}/revalidatePath"
    # Turned off, a reranker at hand changes nothing.
    assert _pages(index, question, stages=NO_STAGES, reranker=reranker) == fused_only


def _reranked(
    index: DocsIndex, cross_encoder: TinyCrossEncoder, **options: Any
) -> list[SearchResult]:
    return search(
        index,
        HashingTestEmbedder(),
        "stale data after a mutation",
        VERSION,
        top_k=5,
        stages=NO_STAGES.with_stage("rerank", True),
        reranker=CrossEncoderReranker(str(cross_encoder.folder)),
        **options,
    )


def test_reranked_results_explain_the_cross_encoder_score(
    index: DocsIndex, cross_encoder: TinyCrossEncoder
) -> None:
    results = _reranked(index, cross_encoder)
    assert all("rerank" in result.scores for result in results)
    assert all(result.score == result.scores["final"] for result in results)
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_candidates_the_cross_encoder_did_not_read_stay_below(
    index: DocsIndex, cross_encoder: TinyCrossEncoder
) -> None:
    results = _reranked(index, cross_encoder, weights=StageWeights(rerank_candidates=2))
    read = [r for r in results if "rerank" in r.scores]
    assert len(read) == 2
    assert results[:2] == read


def test_a_missing_reranker_is_reported_once_with_what_to_do(tmp_path: Path) -> None:
    assistant = Assistant(AssistantConfig(profile="light", reranker_model=str(tmp_path)))
    with pytest.raises(ModelError, match=r"holds no model\.onnx") as first:
        assistant.reranker()
    (tmp_path / "model.onnx").write_bytes(b"not a model")  # a later fix needs a new setting
    with pytest.raises(ModelError) as second:
        assistant.reranker()
    assert second.value is first.value
    assert "holds no model.onnx" in (
        assistant.missing_model(NO_STAGES.with_stage("rerank", True)) or ""
    )


def test_an_unknown_reranker_name_lists_the_known_ones() -> None:
    with pytest.raises(ModelError, match=r"Unknown reranker 'nobody/nothing'.*BAAI/bge-reranker"):
        CrossEncoderReranker("nobody/nothing")


# ----------------------------------------------------------------- HyDE


def _settings(host: str) -> GenerationSettings:
    return GenerationSettings(host=host, model="qwen2.5-coder:7b")


def test_hyde_asks_the_model_for_the_docs_passage_of_the_question() -> None:
    passage = "Call revalidatePath to purge the cached data of one path."
    with FakeOllama(FakeScript(reply=passage)) as fake:
        written = hypothetical_passage("my data is stale", "16.4.6", _settings(fake.host))
        (request,) = fake.chat_requests
    assert written == passage
    assert request["stream"] is False
    assert request["messages"][-1]["content"] == "my data is stale"
    assert "Next.js 16.4.6" in request["messages"][0]["content"]


def test_hyde_fails_at_once_when_ollama_or_the_model_is_missing() -> None:
    started = time.perf_counter()
    with pytest.raises(OllamaUnreachableError):
        hypothetical_passage("q", VERSION, _settings(closed_port_host()))
    assert time.perf_counter() - started < 2.0
    not_the_configured_one = FakeScript(models=["llama3:latest"])
    with FakeOllama(not_the_configured_one) as fake, pytest.raises(ModelNotInstalledError):
        hypothetical_passage("q", VERSION, _settings(fake.host))


def test_the_imagined_passage_brings_the_page_it_names(index: DocsIndex) -> None:
    question = "stale data after saving"
    passage = "revalidatePath: purge the cached data of one path"
    hyde = NO_STAGES.with_stage("hyde", True)
    without = _pages(index, question, stages=hyde)  # no passage: the stage cannot act
    with_it = _pages(index, question, stages=hyde, hypothetical=passage)
    page = f"{FUNCTIONS}/revalidatePath"
    assert with_it.index(page) < (without.index(page) if page in without else len(without))
    assert with_it[0] == page


def test_searches_go_on_without_hyde_and_stop_asking_while_the_model_is_missing() -> None:
    with FakeOllama(FakeScript(models=[])) as fake:
        assistant = Assistant(
            AssistantConfig(profile="light", ollama_host=fake.host, model="qwen2.5-coder:7b")
        )
        assert assistant.hypothetical_passage("q", VERSION) is None
        assert assistant.hypothetical_passage("q", VERSION) is None
        assert len(fake.chat_requests) == 1  # the second search did not wait on Ollama
        assert "not installed" in (
            assistant.missing_model(NO_STAGES.with_stage("hyde", True)) or ""
        )

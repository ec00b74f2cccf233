"""A patch release that rewords one paragraph, indexed with the real light model on top
of the real 16.2.0 index: the model runs on that paragraph alone, not on the rest of
its section, and the reworded text is what the new version answers with."""

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from raggin_lsp.assistant import Assistant, AssistantConfig
from raggin_lsp.corpus.fetch import ensure_docs
from raggin_lsp.embed.base import Embedding

pytestmark = [pytest.mark.network, pytest.mark.slow]

PAGE = "01-app/03-api-reference/04-functions/revalidatePath.md"
OLD = (
    "`revalidatePath` cannot be called in Client Components or Proxy, as it only works in "
    "server environments."
)
NEW = "`revalidatePath` runs on the server only: Client Components and Proxy cannot call it."


def test_a_reworded_paragraph_is_the_only_text_the_model_runs_on(
    writable_light_index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "next" / "docs"
    shutil.copytree(ensure_docs("16.2.0") / "docs", docs)
    page = docs / PAGE
    text = page.read_text(encoding="utf-8")
    assert text.count(OLD) == 1  # the neighbours of this paragraph stay as they were
    page.write_text(text.replace(OLD, NEW), encoding="utf-8")

    assistant = Assistant(AssistantConfig(profile="light", qdrant_path=writable_light_index))
    embedder = assistant.embedder
    embedded: list[str] = []
    embed_documents = embedder.embed_documents

    def recording(texts: Sequence[str], **options: Any) -> list[Embedding]:
        embedded.extend(texts)
        return embed_documents(texts, **options)

    monkeypatch.setattr(embedder, "embed_documents", recording)
    try:
        report = assistant.index("16.2.1", from_path=docs.parent)
        found = assistant.search("does revalidatePath run on the server only", "16.2.1", top_k=3)
    finally:
        assistant.close()

    assert report.embedded == 1  # one section changed (its "Usage" section) ...
    assert embedded == [NEW]  # ... and the model ran on the reworded paragraph alone
    assert report.texts_embedded == 1
    assert report.texts_total > 10_000
    assert any(NEW in result.text and result.version == "16.2.1" for result in found)

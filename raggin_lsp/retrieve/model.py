"""What a search returns: one docs section with where it came from and how it scored."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from raggin_lsp.corpus.model import CodeSnippet


@dataclass(frozen=True)
class SearchResult:
    url: str  # version-exact nextjs.org address with #anchor
    url_path: str  # site path without anchor, e.g. /docs/app/api-reference/functions/revalidatePath
    anchor: str
    version: str
    title: str
    heading_path: tuple[str, ...]
    text: str
    code: tuple[CodeSnippet, ...]
    router: str
    tag: str
    score: float  # final score after every retrieval stage
    # Per stage, for --explain: sparse, text, code (raw), fused, api, page, hub, router,
    # rerank (the cross-encoder's raw score), final.
    scores: dict[str, float] = field(default_factory=dict)
    also: tuple[str, ...] = ()  # the same page for the other router (an App/Pages twin)
    # How the version was searched: "hybrid", or "lexical only, dense 40%" while its dense
    # vectors are still being added (sections without one are found lexically only).
    index_stage: str = "hybrid"
    # The embedding profile whose index answered ("bge-m3", or "light" while the bge-m3
    # index of the version is not complete or its model cannot load).
    profile: str = ""

    @property
    def heading(self) -> str:
        return " > ".join(self.heading_path)

    def to_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "urlPath": self.url_path,
            "anchor": self.anchor,
            "version": self.version,
            "title": self.title,
            "heading": self.heading,
            "headingPath": list(self.heading_path),
            "text": self.text,
            "code": [
                {
                    "language": s.language,
                    "code": s.code,
                    "filename": s.filename,
                    "switcher": s.switcher,
                    "highlight": s.highlight,
                }
                for s in self.code
            ],
            "router": self.router,
            "tag": self.tag,
            "score": self.score,
            "scores": dict(self.scores),
            "also": list(self.also),
            "indexStage": self.index_stage,
            "profile": self.profile,
        }


class Reranker(Protocol):
    """A cross-encoder (:mod:`raggin_lsp.retrieve.rerank`): one score per passage, higher is
    a better answer to the question."""

    def score(self, query: str, passages: Sequence[str]) -> list[float]: ...

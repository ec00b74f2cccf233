"""Run retrieval strategies over a question set and collect page-level metrics.

The runner knows nothing about Qdrant or embeddings: it gets a ``search`` callable that
answers one question with one strategy and returns the ranked url paths and the time it
took, so the same code scores the real index, a recorded run or a test double.
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from raggin_lsp.eval.metrics import QuestionScore, aggregate, score_ranking, unique_pages
from raggin_lsp.eval.questions import KINDS, Question
from raggin_lsp.retrieve.strategies import DEFAULT_FUSION, DEFAULT_ONE_PER_PAGE, STRATEGIES
from raggin_lsp.retrieve.strategies import Strategy as RetrievalStrategy

Fusion = RetrievalStrategy
FUSIONS: tuple[str, ...] = STRATEGIES


@dataclass(frozen=True)
class Strategy:
    """How to rank: one modality alone or a fusion of both, with or without grouping the
    hits by page (one best section per page) before they are returned."""

    fusion: Fusion
    group_pages: bool = False

    @property
    def name(self) -> str:
        return f"{self.fusion}+pages" if self.group_pages else self.fusion

    @classmethod
    def from_name(cls, name: str) -> "Strategy":
        fusion, _, suffix = name.partition("+")
        if fusion not in FUSIONS or suffix not in ("", "pages"):
            known = ", ".join(s.name for s in ALL_STRATEGIES)
            raise ValueError(f"Unknown strategy '{name}'; known strategies: {known}")
        return cls(fusion=fusion, group_pages=suffix == "pages")  # type: ignore[arg-type]


# "weighted" is RAGGIN's arctan-normalised weighted sum of the modality scores.
ALL_STRATEGIES: tuple[Strategy, ...] = tuple(
    Strategy(fusion, group)  # type: ignore[arg-type]
    for fusion in FUSIONS
    for group in (False, True)
)
# What the server and the CLI do unless told otherwise: the summary of a report.
DEFAULT_STRATEGY = DEFAULT_FUSION + ("+pages" if DEFAULT_ONE_PER_PAGE else "")

SearchFn = Callable[[str, Question, Strategy], tuple[list[str], float]]


@dataclass(frozen=True)
class QuestionResult:
    """One question answered by one strategy, kept so a report can show the misses."""

    question_id: str
    kind: str
    strategy: str
    style: str
    gold: tuple[str, ...]
    pages: tuple[str, ...]  # deduplicated result pages, best first
    latency_ms: float
    score: QuestionScore


@dataclass
class EvalReport:
    strategies: dict[str, dict[str, float]]  # strategy name -> metrics (METRIC_KEYS order)
    per_kind: dict[str, dict[str, dict[str, float]]]  # kind -> strategy name -> metrics
    default_strategy: str
    per_style: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    version: str | None = None
    results: list[QuestionResult] = field(default_factory=list)

    @property
    def summary(self) -> dict[str, float]:
        return self.strategies[self.default_strategy]


def run_eval(
    questions: Sequence[Question],
    search: SearchFn,
    strategies: Iterable[Strategy | str] = ALL_STRATEGIES,
    *,
    version: str | None = None,
    default_strategy: str | None = None,
) -> EvalReport:
    """Ask every question with every strategy and score the answers.

    With ``version`` set, questions that do not apply to it are skipped and
    version-dependent gold pages are taken for that version. The summary strategy is
    ``default_strategy``, else ``rrf+pages`` when run, else the first strategy."""
    chosen = [s if isinstance(s, Strategy) else Strategy.from_name(s) for s in strategies]
    if not chosen:
        raise ValueError("run_eval needs at least one strategy")
    names = [s.name for s in chosen]
    if default_strategy is None:
        default_strategy = DEFAULT_STRATEGY if DEFAULT_STRATEGY in names else names[0]
    elif default_strategy not in names:
        raise ValueError(f"default strategy '{default_strategy}' is not among {names}")
    asked = [q for q in questions if version is None or q.applies_to(version)]
    if not asked:
        raise ValueError(f"no question applies to version {version}")

    results: list[QuestionResult] = []
    for strategy in chosen:
        for question in asked:
            gold = question.gold_for(version)
            ranked, latency_ms = search(question.question, question, strategy)
            results.append(
                QuestionResult(
                    question_id=question.id,
                    kind=question.kind,
                    strategy=strategy.name,
                    style=question.style,
                    gold=gold,
                    pages=tuple(unique_pages(ranked)),
                    latency_ms=float(latency_ms),
                    score=score_ranking(ranked, gold),
                )
            )

    def metrics_of(selected: list[QuestionResult]) -> dict[str, float]:
        return aggregate([r.score for r in selected], [r.latency_ms for r in selected])

    overall = {name: metrics_of([r for r in results if r.strategy == name]) for name in names}
    kinds_present = [k for k in KINDS if any(q.kind == k for q in asked)]
    per_kind = {
        kind: {
            name: metrics_of([r for r in results if r.strategy == name and r.kind == kind])
            for name in names
        }
        for kind in kinds_present
    }
    styles = sorted({q.style for q in asked})
    per_style = {
        style: {
            name: metrics_of([r for r in results if r.strategy == name and r.style == style])
            for name in names
        }
        for style in styles
    }
    return EvalReport(
        strategies=overall,
        per_kind=per_kind,
        per_style=per_style,
        default_strategy=default_strategy,
        version=version,
        results=results,
    )

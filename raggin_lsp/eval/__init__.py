"""Retrieval-quality evaluation: question sets, page-level metrics, runner and reports."""

from raggin_lsp.eval.metrics import METRIC_KEYS, page_of, score_ranking, unique_pages
from raggin_lsp.eval.questions import (
    Question,
    QuestionSetError,
    check_against_docs,
    load_questions,
    parse_questions,
)
from raggin_lsp.eval.runner import (
    ALL_STRATEGIES,
    DEFAULT_STRATEGY,
    EvalReport,
    Strategy,
    run_eval,
)

__all__ = [
    "ALL_STRATEGIES",
    "DEFAULT_STRATEGY",
    "METRIC_KEYS",
    "EvalReport",
    "Question",
    "QuestionSetError",
    "Strategy",
    "check_against_docs",
    "load_questions",
    "page_of",
    "parse_questions",
    "run_eval",
    "score_ranking",
    "unique_pages",
]

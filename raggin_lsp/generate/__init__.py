"""Answers from a local Ollama model, grounded in retrieved sections and cited."""

from raggin_lsp.generate.answer import answer_question
from raggin_lsp.generate.extractive import extractive_answer
from raggin_lsp.generate.model import (
    Answer,
    Citation,
    ContextItem,
    GenerationSettings,
    Turn,
)
from raggin_lsp.generate.ollama_api import (
    ModelNotInstalledError,
    OllamaError,
    OllamaUnreachableError,
    is_reachable,
    list_models,
)

__all__ = [
    "Answer",
    "Citation",
    "ContextItem",
    "GenerationSettings",
    "ModelNotInstalledError",
    "OllamaError",
    "OllamaUnreachableError",
    "Turn",
    "answer_question",
    "extractive_answer",
    "is_reachable",
    "list_models",
]

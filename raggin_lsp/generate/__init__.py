"""Answers from a local Ollama model, grounded in retrieved sections and cited.

Only the light parts load with the package: the Ollama client takes half a second to
import, which a search (no model) must not pay. Import ``answer_question`` from
:mod:`raggin_lsp.generate.answer` and the Ollama calls from
:mod:`raggin_lsp.generate.ollama_api`.
"""

from raggin_lsp.generate.extractive import extractive_answer
from raggin_lsp.generate.model import (
    Answer,
    Citation,
    ContextItem,
    GenerationSettings,
    Turn,
)

__all__ = [
    "Answer",
    "Citation",
    "ContextItem",
    "GenerationSettings",
    "Turn",
    "extractive_answer",
]

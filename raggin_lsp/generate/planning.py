"""Query planning with the local model: a hypothetical docs passage for a question (HyDE).

Developers ask in their own words; the docs answer in theirs. Asked to write the passage
that would answer the question, a code model names the APIs, file conventions and
options involved, in the docs' vocabulary, and that passage is searched alongside the
question (the ``hyde`` retrieval stage). The passage only steers retrieval: answers
still come from, and cite, the retrieved docs.
"""

import httpx

from raggin_lsp.generate.model import GenerationSettings
from raggin_lsp.generate.ollama_api import chat_once

# Connecting to a local Ollama is instant or fails; a short passage takes seconds.
HYDE_TIMEOUT = httpx.Timeout(30.0, connect=0.5)
_MAX_QUESTION_CHARS = 2000
_OPTIONS = {"temperature": 0.0, "num_predict": 160}


def hyde_messages(question: str, version: str) -> list[dict[str, str]]:
    return [
        {
            "role": "system",
            "content": (
                f"You write passages of the Next.js {version} documentation. Given a "
                "developer's question, write the 2-4 sentence passage of the docs that "
                "answers it, naming the exact functions, components, file conventions, "
                "config options or CLI commands involved as Next.js "
                f"{version} calls them. No preamble, no code fences."
            ),
        },
        {"role": "user", "content": question[:_MAX_QUESTION_CHARS]},
    ]


def hypothetical_passage(
    question: str,
    version: str,
    settings: GenerationSettings,
    *,
    timeout: httpx.Timeout = HYDE_TIMEOUT,
) -> str:
    """The passage the model imagines answering ``question`` (raises ``OllamaError``)."""
    reply = chat_once(
        host=settings.host,
        model=settings.model,
        messages=hyde_messages(question, version),
        options=_OPTIONS,
        timeout=timeout,
    )
    return reply.strip()

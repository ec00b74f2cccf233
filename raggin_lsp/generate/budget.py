"""Cheap token estimates and trimming to a token budget.

Prompt budgets only need to be roughly right, and the model's own tokenizer lives in
Ollama, so tokens are estimated as one per four characters: the usual figure for
English and source code with BPE vocabularies such as Qwen's or Llama's. Code with
many symbols has slightly more tokens than estimated, so budgets keep some slack.
"""

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Roughly how many tokens ``text`` takes (``ceil(len / 4)``)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def trim_to_tokens(text: str, max_tokens: int) -> tuple[str, bool]:
    """Keep the start of ``text`` within ``max_tokens``; say whether anything was cut.

    The cut falls on a line break when one is near, so code is not split mid-line.
    """
    if estimate_tokens(text) <= max_tokens:
        return text, False
    limit = max(0, max_tokens) * CHARS_PER_TOKEN
    kept = text[:limit]
    line_end = kept.rfind("\n")
    if line_end >= limit * 0.8:
        kept = kept[:line_end]
    return kept.rstrip(), True

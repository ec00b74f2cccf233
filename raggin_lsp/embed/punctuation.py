"""The Unicode punctuation set fastembed's BM25 strips, computed once per Python, not per run.

fastembed's ``Bm25`` builds this set on every construction by testing all 1.1 million
code points (``fastembed.common.utils.get_all_punctuation``): 1.0 s measured on this
machine, on every cold start of every process that embeds a query. The set depends only
on the Unicode database of the running Python, so it is kept in the cache folder, keyed
by that database's version, and handed to fastembed in place of the slow function.
"""

import json
import unicodedata
from functools import cache

from raggin_lsp import paths


@cache
def punctuation() -> set[str]:
    file = paths.models_cache_dir() / f"punctuation-unicode-{unicodedata.unidata_version}.json"
    try:
        return set(json.loads(file.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        pass
    from fastembed.common.utils import get_all_punctuation

    found = get_all_punctuation()
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(".tmp")
        tmp.write_text(json.dumps(sorted(found)), encoding="utf-8")
        tmp.replace(file)
    except OSError:
        pass  # a read-only cache only costs the second again next time
    return found


def use_cached_punctuation() -> None:
    """Make fastembed's BM25 take :func:`punctuation` (call before constructing it)."""
    import fastembed.sparse.bm25 as bm25

    bm25.get_all_punctuation = punctuation  # type: ignore[attr-defined]

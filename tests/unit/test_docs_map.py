"""What retrieval derives from a version's own sections and its API catalog: API pages,
old names, hubs, twins."""

from pathlib import Path
from typing import Any

import pytest

from raggin_lsp.corpus.apis import Api, ApiCatalog, Deprecation, Symbol
from raggin_lsp.retrieve.docsmap import DocsMap, api_key, build_docs_map, cached_docs_map


def _section(
    url_path: str, title: str, text: str, heading: str = "", router: str = "app"
) -> dict[str, Any]:
    path = (title, heading) if heading else (title,)
    return {"url_path": url_path, "heading_path": list(path), "text": text, "router": router}


SECTIONS = [
    _section(
        "/docs/app/api-reference/file-conventions/proxy", "proxy.js", "Use proxy to run code."
    ),
    _section(
        "/docs/app/api-reference/file-conventions/proxy",
        "proxy.js",
        "| Version | Changes |\n|---|---|\n"
        "| `v16.0.0` | Middleware is deprecated and renamed to Proxy |",
        heading="Version History",
    ),
    _section(
        "/docs/app/api-reference/functions/cacheTag",
        "cacheTag",
        "| `v16.0.0` | `cacheTag` stabilized. `unstable_cacheTag` deprecated. |",
        heading="Version History",
    ),
    _section("/docs/app/api-reference/functions/revalidatePath", "revalidatePath", "Purge."),
    _section(
        "/docs/pages/api-reference/functions/revalidatePath", "revalidatePath", "x", router="pages"
    ),
    _section("/docs/app/api-reference/components/image", "Image Component", "Images."),
    _section(
        "/docs/app/glossary",
        "Glossary",
        "revalidatePath, cacheTag, proxy and the Image component, all in one place",
    ),
    _section("/docs/app/getting-started/caching", "Caching", "Use revalidatePath here."),
]


PROXY = "/docs/app/api-reference/file-conventions/proxy"
CACHE_TAG = "/docs/app/api-reference/functions/cacheTag"
IMAGE = "/docs/app/api-reference/components/image"


def _catalog() -> ApiCatalog:
    """What the API catalog of these sections says (as corpus.apis derives it from docs)."""
    apis = [
        Api(
            PROXY,
            "proxy.js",
            "file-conventions",
            "app",
            names=("proxy",),
            symbols=(Symbol("file", "proxy"),),
        ),
        Api(
            CACHE_TAG,
            "cacheTag",
            "functions",
            "app",
            names=("cacheTag",),
            symbols=(Symbol("import", "cacheTag", "next/cache"),),
        ),
        Api(
            IMAGE,
            "Image Component",
            "components",
            "app",
            names=("Image",),
            symbols=(Symbol("import", "Image", "next/image"), Symbol("module", "next/image")),
        ),
    ]
    deprecations = [
        Deprecation(
            Symbol("file", "middleware"),
            "renamed",
            "16.0.0",
            "Middleware is deprecated and renamed to Proxy",
            PROXY,
            Symbol("file", "proxy"),
            PROXY,
        ),
        Deprecation(
            Symbol("import", "unstable_cacheTag", "next/cache"),
            "deprecated",
            "16.0.0",
            "`cacheTag` stabilized. `unstable_cacheTag` deprecated.",
            CACHE_TAG,
            Symbol("import", "cacheTag", "next/cache"),
            CACHE_TAG,
        ),
        Deprecation(
            Symbol("config", "experimental.oldFlag"),
            "removed",
            None,
            "`oldFlag` was removed.",
            CACHE_TAG,
        ),  # no replacement: routes nowhere
    ]
    return ApiCatalog("16.4.6", {api.url_path: api for api in apis}, deprecations)


def test_api_names_are_normalised_like_the_titles() -> None:
    assert api_key("proxy.js") == api_key("middleware.ts".replace("middleware", "proxy"))
    assert api_key("next/image") == api_key("Image Component") == "image"
    assert api_key("revalidatePath()") == "revalidatepath"


def test_a_named_api_routes_to_its_reference_pages_of_both_routers() -> None:
    docs = build_docs_map("16.4.6", SECTIONS)
    assert docs.pages_for(["revalidatePath"]) == [
        "/docs/app/api-reference/functions/revalidatePath",
        "/docs/pages/api-reference/functions/revalidatePath",
    ]
    assert docs.pages_for(["next/image"]) == ["/docs/app/api-reference/components/image"]


def test_old_names_come_from_the_catalogs_deprecations() -> None:
    docs = build_docs_map("16.4.6", SECTIONS, _catalog())
    assert docs.pages_for(["middleware.ts"]) == [PROXY]
    assert docs.pages_for(["unstable_cacheTag"]) == [CACHE_TAG]
    assert docs.pages_for(["middleware.ts"], old_names=False) == []
    assert docs.new_names(["middleware"]) == ["proxy.js"]
    assert docs.pages_for(["experimental.oldFlag", "oldFlag"]) == []


def test_without_a_catalog_titles_still_route_and_no_name_is_old() -> None:
    docs = build_docs_map("16.4.6", SECTIONS)
    assert docs.pages_for(["proxy.js"]) == [PROXY]
    assert docs.pages_for(["middleware.ts", "unstable_cacheTag"]) == []


def test_the_names_code_uses_route_to_the_page() -> None:
    docs = build_docs_map("16.4.6", SECTIONS, _catalog())
    assert docs.pages_for(["next/image"]) == [IMAGE]
    assert docs.pages_for(["Image"]) == [IMAGE]


def test_a_page_that_mentions_every_api_is_the_hub() -> None:
    docs = build_docs_map("16.4.6", SECTIONS)
    assert docs.hubness["/docs/app/glossary"] == 1.0
    assert docs.hubness["/docs/app/getting-started/caching"] < 0.5


def test_app_and_pages_twins_are_paired() -> None:
    docs = build_docs_map("16.4.6", SECTIONS)
    app, pages = (
        "/docs/app/api-reference/functions/revalidatePath",
        "/docs/pages/api-reference/functions/revalidatePath",
    )
    assert docs.twins == {app: pages, pages: app}


def test_the_map_is_cached_on_disk_by_key(tmp_path: Path) -> None:
    built: list[DocsMap] = []

    def build() -> DocsMap:
        built.append(build_docs_map("16.4.6", SECTIONS))
        return built[-1]

    first = cached_docs_map("light-16.4.6-1", tmp_path, build)
    again = cached_docs_map("light-16.4.6-1", tmp_path, build)
    assert len(built) == 1
    assert again == first
    cached_docs_map("light-16.4.6-2", tmp_path, build)  # re-indexed: a new key builds again
    assert len(built) == 2


def test_searches_get_no_catalog_rather_than_a_download(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from raggin_lsp.corpus import apis, fetch

    monkeypatch.setenv("RAGGIN_CACHE_DIR", str(tmp_path))

    def no_network(*args: object, **kwargs: object) -> Path:
        raise AssertionError("a search must not fetch docs")

    monkeypatch.setattr(fetch, "ensure_docs", no_network)
    assert apis.cached_catalog("16.4.6") is None

"""What retrieval derives from a version's own sections: API pages, old names, hubs, twins."""

from pathlib import Path
from typing import Any

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


def test_old_names_come_from_the_version_history_tables() -> None:
    docs = build_docs_map("16.4.6", SECTIONS)
    assert docs.pages_for(["middleware.ts"]) == ["/docs/app/api-reference/file-conventions/proxy"]
    assert docs.pages_for(["unstable_cacheTag"]) == ["/docs/app/api-reference/functions/cacheTag"]
    assert docs.pages_for(["middleware.ts"], old_names=False) == []
    assert docs.new_names(["middleware"]) == ["proxy.js"]


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

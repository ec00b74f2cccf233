"""The API catalog derived from the real docs of 16.2.0 and 16.4.6.

The docs come from the npm registry (cached); the catalog must name only pages the
version has, and find what the docs say about deprecations and renames.
"""

from pathlib import Path

import pytest

from raggin_lsp.corpus.apis import ApiCatalog, Symbol, build_catalog
from raggin_lsp.corpus.fetch import ensure_docs
from raggin_lsp.corpus.parse import parse_pages

pytestmark = pytest.mark.network

VERSIONS = ["16.2.0", "16.4.6"]


@pytest.fixture(scope="module", params=VERSIONS)
def parsed(request: pytest.FixtureRequest) -> tuple[str, set[str], ApiCatalog]:
    version = str(request.param)
    pages = parse_pages(Path(ensure_docs(version)), version)
    return version, {page.page.url_path for page in pages}, build_catalog(version, pages)


def test_every_catalog_url_is_a_parsed_page_of_its_version(
    parsed: tuple[str, set[str], ApiCatalog],
) -> None:
    _, urls, catalog = parsed
    linked = set(catalog.apis)
    linked |= {api.twin for api in catalog.apis.values() if api.twin}
    linked |= {d.page for d in catalog.deprecations}
    linked |= {d.replacement_page for d in catalog.deprecations if d.replacement_page}
    assert linked - urls == set()  # zero dead links
    assert all("/api-reference" in url for url in catalog.apis)


@pytest.mark.parametrize(
    ("symbol", "page"),
    [
        pytest.param(
            Symbol("import", "revalidatePath", "next/cache"),
            "functions/revalidatePath",
            id="import",
        ),
        pytest.param(
            Symbol("import", "useRouter", "next/navigation"), "functions/use-router", id="hook"
        ),
        pytest.param(Symbol("import", "default", "next/image"), "components/image", id="component"),
        pytest.param(Symbol("module", "next/font/google"), "components/font", id="module"),
        pytest.param(Symbol("file", "proxy"), "file-conventions/proxy", id="file"),
        pytest.param(Symbol("directive", "use client"), "directives/use-client", id="directive"),
        pytest.param(
            Symbol("export", "generateMetadata"), "functions/generate-metadata", id="export"
        ),
        pytest.param(
            Symbol("export", "metadata"), "functions/generate-metadata", id="export-object"
        ),
        pytest.param(Symbol("config", "basePath"), "config/next-config-js/basePath", id="config"),
    ],
)
def test_code_symbols_lead_to_their_reference_page(
    parsed: tuple[str, set[str], ApiCatalog], symbol: Symbol, page: str
) -> None:
    _, _, catalog = parsed
    found = catalog.by_symbol(symbol)
    assert found, symbol
    assert found[0].url_path == f"/docs/app/api-reference/{page}"


def test_pages_router_twins_and_kinds(parsed: tuple[str, set[str], ApiCatalog]) -> None:
    _, _, catalog = parsed
    image = catalog.apis["/docs/app/api-reference/components/image"]
    assert image.kind == "components"
    assert image.router == "app"
    assert image.twin == "/docs/pages/api-reference/components/image"
    assert image.description
    router = catalog.by_symbol(Symbol("import", "useRouter", "next/router"))
    assert router[0].url_path == "/docs/pages/api-reference/functions/use-router"
    assert catalog.apis["/docs/app/api-reference/file-conventions/page"].symbols == (
        Symbol("file", "page", folder="app"),
    )


def test_deprecations_the_docs_state(parsed: tuple[str, set[str], ApiCatalog]) -> None:
    version, _, catalog = parsed
    middleware = catalog.deprecation_of(Symbol("file", "middleware"))
    assert middleware is not None
    assert middleware.replacement is not None
    assert middleware.replacement.name == "proxy"
    no_store = catalog.deprecation_of(Symbol("import", "unstable_noStore", "next/cache"))
    assert no_store is not None
    assert no_store.replacement == Symbol("import", "connection", "next/server")
    # Names the history calls old but that are live APIs of the version are not deprecated.
    assert catalog.deprecation_of(Symbol("module", "next/image")) is None
    assert catalog.deprecation_of(Symbol("export", "viewport")) is None
    if version == "16.4.6":
        cache_life = catalog.deprecation_of(Symbol("import", "unstable_cacheLife", "next/cache"))
        assert cache_life is not None
        assert cache_life.since == "16.0.0"
        assert cache_life.replacement == Symbol("import", "cacheLife", "next/cache")
        assert cache_life.replacement_page == "/docs/app/api-reference/functions/cacheLife"
        renamed = catalog.deprecation_of(Symbol("config", "skipMiddlewareUrlNormalize"))
        assert renamed is not None
        assert renamed.status == "renamed"


def test_the_catalog_survives_json(parsed: tuple[str, set[str], ApiCatalog]) -> None:
    _, _, catalog = parsed
    again = ApiCatalog.from_json(catalog.to_json())
    assert again.apis == catalog.apis
    assert again.deprecations == catalog.deprecations

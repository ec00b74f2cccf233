"""Which Version History rows `raggin-lsp diff` and `raggin/diff` report."""

import pytest

from raggin_lsp.changes import changes_between, diff_json, release_key
from raggin_lsp.corpus.apis import Api, ApiCatalog, HistoryRow, Symbol

ROWS = (
    HistoryRow("v16.4.0", "`cacheLife` gained a profile."),
    HistoryRow("16.3.0", "`cacheLife` is stable."),
    HistoryRow("v16.2.0", "`cacheLife` moved."),
    HistoryRow("v15.0.0", "`unstable_cacheLife` introduced."),
    HistoryRow("canary", "Not a release."),
)
CATALOG = ApiCatalog(
    "16.4.6",
    apis={
        "/docs/app/api-reference/functions/cacheLife": Api(
            "/docs/app/api-reference/functions/cacheLife",
            "cacheLife",
            "functions",
            "app",
            names=("cacheLife",),
            symbols=(Symbol("import", "cacheLife", "next/cache"),),
            history=ROWS,
        ),
        "/docs/pages/api-reference/functions/cacheLife": Api(
            "/docs/pages/api-reference/functions/cacheLife",
            "cacheLife",
            "functions",
            "pages",
            names=("cacheLife",),
            history=ROWS,
        ),
        "/docs/app/api-reference/file-conventions/proxy": Api(
            "/docs/app/api-reference/file-conventions/proxy",
            "proxy.js",
            "file-conventions",
            "app",
            names=("proxy",),
            history=(HistoryRow("v16.0.0", "`middleware` renamed to `proxy`."),),
        ),
    },
)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        pytest.param("v16.3.0", (16, 3, 0), id="v-prefix"),
        pytest.param("16.3", (16, 3, 0), id="no-patch"),
        pytest.param("canary", None, id="not-a-release"),
    ],
)
def test_release_key(text: str, key: tuple[int, int, int] | None) -> None:
    assert release_key(text) == key


def test_rows_after_the_older_up_to_the_newer_version_once_per_twin() -> None:
    changes = changes_between(CATALOG, "16.2.0", "16.4.6")
    assert [(c.version, c.api, c.router) for c in changes] == [
        ("16.3.0", "cacheLife", "app"),
        ("v16.4.0", "cacheLife", "app"),
    ]
    assert changes[0].url == "https://nextjs.org/docs/app/api-reference/functions/cacheLife"


def test_one_api_by_any_of_its_names() -> None:
    assert [c.api for c in changes_between(CATALOG, "15.5.0", "16.4.6", "proxy")] == ["proxy"]
    assert len(changes_between(CATALOG, "14.0.0", "16.4.6", "`cacheLife`")) == 4
    assert changes_between(CATALOG, "16.2.0", "16.4.6", "nothing") == []


def test_json_groups_the_apis_by_minor_release() -> None:
    answer = diff_json(CATALOG, "16.1.0")
    assert answer["to"] == "16.4.6"
    assert answer["apisByMinor"] == {
        "16.2": ["cacheLife"],
        "16.3": ["cacheLife"],
        "16.4": ["cacheLife"],
    }
    with pytest.raises(ValueError, match="not a release"):
        diff_json(CATALOG, "latest")

"""Site paths to nextjs.org addresses, as the docs and the site make them."""

import pytest

from raggin_lsp.corpus.urls import absolute_links, linked_pages, site_url


@pytest.mark.parametrize(
    ("url_path", "version", "latest_major", "expected"),
    [
        pytest.param(
            "/docs/app/api-reference/functions/revalidatePath",
            "16.2.0",
            16,
            "https://nextjs.org/docs/app/api-reference/functions/revalidatePath",
            id="newest-major-unprefixed",
        ),
        pytest.param(
            "/docs/app/getting-started/installation",
            "15.5.4",
            16,
            "https://nextjs.org/docs/15/app/getting-started/installation",
            id="older-major-prefixed",
        ),
        pytest.param(
            "/docs/pages", "14.2.0", None, "https://nextjs.org/docs/pages", id="no-latest-known"
        ),
    ],
)
def test_site_url(url_path: str, version: str, latest_major: int | None, expected: str) -> None:
    assert site_url(url_path, version, latest_major) == expected


def test_absolute_links_rewrites_site_paths_only() -> None:
    text = (
        "See [caching](/docs/app/getting-started/caching#data) and "
        "[MDN](https://developer.mozilla.org/) or `](/docs/x)` in prose."
    )
    result = absolute_links(text, "15.1.0", 16)
    assert "[caching](https://nextjs.org/docs/15/app/getting-started/caching#data)" in result
    assert "[MDN](https://developer.mozilla.org/)" in result
    assert "](/docs/" not in result


def test_linked_pages_are_the_docs_pages_a_text_links_to_once_without_anchors() -> None:
    text = (
        "Use [revalidatePath](/docs/app/api-reference/functions/revalidatePath#usage), "
        "see [caching](/docs/app/getting-started/caching/) and again "
        "[revalidatePath](/docs/app/api-reference/functions/revalidatePath); "
        "[React](https://react.dev/reference) is not a docs page."
    )
    assert linked_pages(text) == [
        "/docs/app/api-reference/functions/revalidatePath",
        "/docs/app/getting-started/caching",
    ]

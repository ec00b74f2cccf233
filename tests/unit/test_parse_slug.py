"""Heading anchors must match the ones nextjs.org links to."""

import pytest

from raggin_lsp.corpus.slug import Slugger, github_slug


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        pytest.param("Quick start", "quick-start", id="spaces"),
        pytest.param("<Link> props", "link-props", id="jsx-name-in-code"),
        pytest.param("Good to know: caching", "good-to-know-caching", id="colon"),
        pytest.param("`next.config.js` options", "nextconfigjs-options", id="dots"),
        pytest.param("use_cache and -dash", "use_cache-and--dash", id="keeps-underscore-and-dash"),
        pytest.param("What's new?", "whats-new", id="apostrophe-question"),
        pytest.param("Step 1 - Install", "step-1---install", id="runs-not-collapsed"),
        pytest.param("Éclair Über", "éclair-über", id="unicode-letters"),
        pytest.param("😄 emoji", "-emoji", id="emoji"),
    ],
)
def test_github_slug(heading: str, anchor: str) -> None:
    assert github_slug(heading) == anchor


def test_repeated_headings_get_numbered() -> None:
    slugger = Slugger()

    slugs = [
        slugger.slug(text) for text in ["Options", "Examples", "Options", "Options", "Options 1"]
    ]

    assert slugs == ["options", "examples", "options-1", "options-2", "options-1-1"]

"""A noisy question is reduced to what it asks: what a user of search would notice."""

import pytest

from raggin_lsp.retrieve.query import analyze, find_identifiers, implied_router

NOISY = (
    "after the upgrade all our dynamic pages log this in dev and some crash in prod:\n\n"
    "```\n"
    'Error: Route "/blog/[slug]" used `params.slug`. `params` is a Promise and must be '
    "unwrapped with `await` or `React.use()` before accessing its properties. Learn more: "
    "https://nextjs.org/docs/messages/sync-dynamic-apis\n"
    "    at BlogPost (app/blog/[slug]/page.tsx:9:24)\n"
    "    at renderToHTMLOrFlight (/app/node_modules/next/dist/server/app-render.js:1:2)\n"
    "```\n\n"
    "we have like 60 pages that destructure `{ params: { slug } }` in the signature. "
    "is there a codemod, and how should the prop types look now in TS?"
)


def test_a_short_clean_question_passes_through_unchanged() -> None:
    analysis = analyze("how do i read a cookie in a server component")
    assert analysis.text == analysis.focus == "how do i read a cookie in a server component"
    assert analysis.parts == ()
    assert not analysis.cleaned


def test_stack_frames_and_paths_are_dropped_and_the_error_message_kept() -> None:
    analysis = analyze(NOISY)
    assert "renderToHTMLOrFlight" not in analysis.text
    assert "node_modules" not in analysis.text
    assert "at BlogPost" not in analysis.text
    assert "params` is a Promise and must be unwrapped" in analysis.text
    assert "sync dynamic apis" in analysis.text  # the docs message slug, not the URL
    assert "https://" not in analysis.text


def test_the_dense_query_starts_with_what_is_asked() -> None:
    analysis = analyze(NOISY)
    assert analysis.focus.startswith("is there a codemod, and how should the prop types look")
    assert len(analysis.focus.split()) <= 90


def test_the_error_becomes_a_sub_query_of_its_own() -> None:
    analysis = analyze(NOISY)
    assert any("is a Promise and must be unwrapped" in part for part in analysis.parts)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "how do I call revalidatePath after a mutation", ["revalidatePath"], id="camel"
        ),
        pytest.param("import Image from 'next/image' is blurry", ["next/image"], id="import"),
        pytest.param("our middleware.ts redirects", ["middleware.ts"], id="file"),
        pytest.param("set images.remotePatterns for s3", ["images.remotePatterns"], id="config"),
        pytest.param("next dev --turbopack crashes", ["next dev", "--turbopack"], id="cli"),
    ],
)
def test_api_names_are_found(text: str, expected: list[str]) -> None:
    assert set(expected) <= set(find_identifiers(text))


@pytest.mark.parametrize(
    ("text", "router"),
    [
        pytest.param("getServerSideProps runs on every request", "pages", id="gssp"),
        pytest.param("how do I use getServerSideProps in the app dir", "app", id="gssp-in-app"),
        pytest.param("'use client' component cannot read cookies", "app", id="use-client"),
        pytest.param("pages/_app.tsx loads user data slowly", "pages", id="pages-app"),
        pytest.param("create a GET api endpoint in the app folder", "app", id="app-folder"),
        pytest.param("an api route in the pages folder", "pages", id="pages-folder"),
        pytest.param("fetch user data on the client with swr in pages", "pages", id="in-pages"),
        pytest.param("how many pages in the app router", "app", id="pages-as-a-word"),
        pytest.param(
            "getStaticProps in pages/posts/[id].tsx fails\n"
            "    at build (/home/app/node_modules/next/dist/build/utils.js:1:2)",
            "pages",
            id="machine-paths-say-nothing",
        ),
        pytest.param("how to deploy to a VPS", None, id="no-signal"),
    ],
)
def test_the_router_a_question_implies(text: str, router: str | None) -> None:
    assert implied_router(text) == router

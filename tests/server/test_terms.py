"""Which Next.js API a hover position points at: a table of documents and cursors."""

import pytest

from raggin_lsp.server.terms import document_router, find_term, imported_names

ACTIONS = """'use server'

import { revalidatePath as purge, revalidateTag } from 'next/cache'
import { redirect } from "next/navigation"

export async function save() {
  purge('/blog')
  revalidateTag('posts')
  redirect('/done')
}
"""

PAGE = """import Image from 'next/image'
import NextLink from 'next/link'
import { Inter } from 'next/font/google'

export const revalidate = 60

export async function generateMetadata() {
  return { title: 'x' }
}

export default function Page() {
  const headers = 1
  return <Image src="/a.png" alt="" />
}
"""

PAGES_ROUTER = """import { useRouter } from 'next/router'

export function getServerSideProps() { return { props: {} } }

export default function Home() {
  const router = useRouter()
  return null
}
"""

CONFIG = """const nextConfig = {
  images: { remotePatterns: [] },
  reactStrictMode: true,
}
"""

APP_REF = "/docs/app/api-reference"


def position(text: str, needle: str, offset: int = 1) -> tuple[int, int]:
    """Line and character a little inside the first occurrence of ``needle``."""
    index = text.index(needle)
    line = text.count("\n", 0, index)
    character = index - (text.rfind("\n", 0, index) + 1) + offset
    return line, character


@pytest.mark.parametrize(
    ("text", "path", "needle", "name", "page"),
    [
        pytest.param(
            ACTIONS,
            "app/actions.ts",
            "revalidateTag(",
            "revalidateTag",
            f"{APP_REF}/functions/revalidateTag",
            id="imported-function",
        ),
        pytest.param(
            ACTIONS,
            "app/actions.ts",
            "purge(",
            "revalidatePath",
            f"{APP_REF}/functions/revalidatePath",
            id="aliased-import-is-still-revalidatePath",
        ),
        pytest.param(
            ACTIONS,
            "app/actions.ts",
            "'use server'",
            "use server",
            f"{APP_REF}/directives/use-server",
            id="directive",
        ),
        pytest.param(
            ACTIONS,
            "app/actions.ts",
            '"next/navigation"',
            "next/navigation",
            f"{APP_REF}/functions/use-router",
            id="module-specifier-double-quotes",
        ),
        pytest.param(
            PAGE,
            "app/page.tsx",
            "'next/image'",
            "next/image",
            f"{APP_REF}/components/image",
            id="next-image-specifier",
        ),
        pytest.param(
            PAGE,
            "app/page.tsx",
            "<Image",
            "next/image",
            f"{APP_REF}/components/image",
            id="default-import-used-in-jsx",
        ),
        pytest.param(
            PAGE,
            "app/page.tsx",
            "NextLink",
            "next/link",
            f"{APP_REF}/components/link",
            id="renamed-default-import",
        ),
        pytest.param(
            PAGE,
            "app/page.tsx",
            "Inter",
            "Inter",
            f"{APP_REF}/components/font",
            id="google-font-family",
        ),
        pytest.param(
            PAGE,
            "app/page.tsx",
            "generateMetadata",
            "generateMetadata",
            f"{APP_REF}/functions/generate-metadata",
            id="exported-convention-function",
        ),
        pytest.param(
            PAGE,
            "app/page.tsx",
            "revalidate =",
            "revalidate",
            f"{APP_REF}/file-conventions/route-segment-config",
            id="segment-config-export",
        ),
        pytest.param(
            PAGES_ROUTER,
            "pages/index.tsx",
            "useRouter()",
            "useRouter",
            "/docs/pages/api-reference/functions/use-router",
            id="pages-router-useRouter",
        ),
        pytest.param(
            PAGES_ROUTER,
            "pages/index.tsx",
            "getServerSideProps",
            "getServerSideProps",
            "/docs/pages/api-reference/functions/get-server-side-props",
            id="pages-data-fetching",
        ),
        pytest.param(
            CONFIG,
            "next.config.js",
            "reactStrictMode",
            "reactStrictMode",
            f"{APP_REF}/config/next-config-js/reactStrictMode",
            id="next-config-option",
        ),
        pytest.param(
            PAGE,
            "app/page.tsx",
            "default function Page",
            "page.tsx",
            f"{APP_REF}/file-conventions/page",
            id="default-export-of-a-page",
        ),
    ],
)
def test_term_at_cursor(text: str, path: str, needle: str, name: str, page: str) -> None:
    line, character = position(text, needle)

    term = find_term(text, line, character, path)

    assert term is not None
    assert (term.name, term.page) == (name, page)


def test_app_router_useRouter_points_to_the_app_page() -> None:
    text = "import { useRouter } from 'next/navigation'\nconst r = useRouter()\n"
    term = find_term(text, 1, 11, "app/x/page.tsx")
    assert term is not None
    assert term.page == f"{APP_REF}/functions/use-router"
    assert term.router == "app"


@pytest.mark.parametrize(
    ("text", "path", "needle"),
    [
        pytest.param(PAGE, "app/page.tsx", "headers = 1", id="local-variable-named-like-an-api"),
        pytest.param(PAGE, "app/page.tsx", "title: 'x'", id="ordinary-object-key"),
        pytest.param(
            "function redirect() {}\nredirect()\n",
            "lib/util.ts",
            "redirect()",
            id="own-function-named-redirect",
        ),
        pytest.param(
            CONFIG, "app/page.tsx", "reactStrictMode", id="config-key-outside-next-config"
        ),
        pytest.param(
            "export default function Error() {}\n",
            "lib/error.ts",
            "default",
            id="error-file-outside-a-router-folder",
        ),
        pytest.param("const s = 'use strict'\n", "a.ts", "use strict", id="other-string"),
    ],
)
def test_ordinary_code_has_no_term(text: str, path: str, needle: str) -> None:
    line, character = position(text, needle)
    assert find_term(text, line, character, path) is None


def test_line_one_of_a_convention_file_documents_the_convention() -> None:
    text = "export default function Layout({ children }) {\n  return children\n}\n"
    term = find_term(text, 0, 0, "/home/me/shop/app/(shop)/layout.tsx")
    assert term is not None
    assert term.kind == "convention"
    assert term.page == f"{APP_REF}/file-conventions/layout"


def test_proxy_file_is_a_convention_anywhere_in_the_project() -> None:
    term = find_term("export function proxy() {}\n", 0, 0, "/repo/src/proxy.ts")
    assert term is not None
    assert term.page == f"{APP_REF}/file-conventions/proxy"


def test_project_router_chooses_between_app_and_pages_docs() -> None:
    text = "import Image from 'next/image'\n"
    app = find_term(text, 0, 8, "components/a.tsx", router="app")
    pages = find_term(text, 0, 8, "components/a.tsx", router="pages")
    assert app is not None
    assert pages is not None
    assert app.page == f"{APP_REF}/components/image"
    assert pages.page == "/docs/pages/api-reference/components/image"


def test_imports_spanning_lines_and_type_imports_are_read() -> None:
    text = (
        "import {\n  type Metadata,\n  cookies as jar,\n} from 'next/headers'\n"
        "import * as nav from 'next/navigation'\n"
    )
    names = imported_names(text)
    assert names["jar"] == ("next/headers", "cookies")
    assert names["Metadata"] == ("next/headers", "Metadata")
    assert names["nav"] == ("next/navigation", "*")


@pytest.mark.parametrize(
    ("text", "router"),
    [
        pytest.param("import { useRouter } from 'next/router'\n", "pages", id="next-router"),
        pytest.param("import { cookies } from 'next/headers'\n", "app", id="next-headers"),
        pytest.param("import Image from 'next/image'\n", None, id="both-routers"),
        pytest.param(
            "import { useRouter } from 'next/router'\nimport { cookies } from 'next/headers'\n",
            None,
            id="contradicting",
        ),
    ],
)
def test_document_router_from_imports(text: str, router: str | None) -> None:
    assert document_router(text) == router


def test_out_of_range_positions_have_no_term() -> None:
    assert find_term("import Image from 'next/image'\n", 7, 0, "a.tsx") is None

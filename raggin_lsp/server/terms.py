"""Which Next.js API a position in a source file points at (pure: no pygls, no I/O).

A hover must be fast and must stay silent on ordinary code, so recognition is driven
by a curated table rather than by the index: a word is a Next.js term only when the
document imports it from a ``next`` module, exports it as a Next.js convention (such as
``generateMetadata``), writes it as a directive, a ``next/...`` module specifier, a
``next.config`` option, or when the file itself is a routing convention file.

Each term carries the search query for the docs and the docs pages it is documented on
(App Router and Pages Router variants), so the hover can prefer a result on that page.
"""

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

Kind = Literal["module", "function", "component", "directive", "config", "convention", "export"]
Router = Literal["app", "pages"]

_APP_REF = "/docs/app/api-reference"
_PAGES_REF = "/docs/pages/api-reference"


@dataclass(frozen=True)
class Entry:
    """One curated API: how to search for it and where it is documented."""

    query: str
    app_page: str | None = None
    pages_page: str | None = None


@dataclass(frozen=True)
class Term:
    """The API found at a position, resolved for one router."""

    name: str
    kind: Kind
    query: str
    pages: tuple[str, ...]  # preferred docs site paths, best first
    router: Router | None  # router the term implies (``next/router`` means pages), if any

    @property
    def page(self) -> str | None:
        return self.pages[0] if self.pages else None


def _fn(name: str, query: str, app: str | None = None, pages: str | None = None) -> Entry:
    return Entry(
        query=query,
        app_page=f"{_APP_REF}/functions/{app or name}" if app != "" else None,
        pages_page=f"{_PAGES_REF}/functions/{pages}" if pages else None,
    )


# Modules you import from. Hovering the specifier string documents the module.
MODULES: dict[str, Entry] = {
    "next/image": Entry(
        "Image component next/image props optimization",
        f"{_APP_REF}/components/image",
        f"{_PAGES_REF}/components/image",
    ),
    "next/legacy/image": Entry(
        "legacy Image component next/legacy/image", None, f"{_PAGES_REF}/components/image-legacy"
    ),
    "next/link": Entry(
        "Link component next/link prefetch navigation",
        f"{_APP_REF}/components/link",
        f"{_PAGES_REF}/components/link",
    ),
    "next/script": Entry(
        "Script component next/script loading strategy",
        f"{_APP_REF}/components/script",
        f"{_PAGES_REF}/components/script",
    ),
    "next/form": Entry(
        "Form component next/form", f"{_APP_REF}/components/form", f"{_PAGES_REF}/components/form"
    ),
    "next/font/google": Entry(
        "next/font/google Google Fonts font optimization",
        f"{_APP_REF}/components/font",
        f"{_PAGES_REF}/components/font",
    ),
    "next/font/local": Entry(
        "next/font/local local font files",
        f"{_APP_REF}/components/font",
        f"{_PAGES_REF}/components/font",
    ),
    "next/head": Entry("Head component next/head", None, f"{_PAGES_REF}/components/head"),
    "next/navigation": Entry(
        "next/navigation hooks useRouter usePathname useSearchParams redirect",
        f"{_APP_REF}/functions/use-router",
    ),
    "next/router": Entry(
        "next/router useRouter router object Pages Router",
        None,
        f"{_PAGES_REF}/functions/use-router",
    ),
    "next/headers": Entry(
        "next/headers cookies headers draftMode", f"{_APP_REF}/functions/headers"
    ),
    "next/cache": Entry(
        "next/cache revalidatePath revalidateTag cacheLife cacheTag",
        "/docs/app/getting-started/revalidating",
    ),
    "next/server": Entry(
        "next/server NextRequest NextResponse",
        f"{_APP_REF}/functions/next-response",
        f"{_PAGES_REF}/functions/next-response",
    ),
    "next/og": Entry(
        "ImageResponse next/og Open Graph image", f"{_APP_REF}/functions/image-response"
    ),
    "next/dynamic": Entry(
        "next/dynamic lazy loading dynamic import",
        "/docs/app/guides/lazy-loading",
        "/docs/pages/guides/lazy-loading",
    ),
    "next/document": Entry(
        "custom Document _document Html Head Main NextScript",
        None,
        "/docs/pages/building-your-application/routing/custom-document",
    ),
    "next/app": Entry(
        "custom App _app AppProps", None, "/docs/pages/building-your-application/routing/custom-app"
    ),
    "next/error": Entry(
        "custom error page next/error",
        None,
        "/docs/pages/building-your-application/routing/custom-error",
    ),
    "next/web-vitals": Entry(
        "useReportWebVitals next/web-vitals",
        f"{_APP_REF}/functions/use-report-web-vitals",
        f"{_PAGES_REF}/functions/use-report-web-vitals",
    ),
}

# Names imported from a next module. Keyed by (module, exported name); "default" for
# default exports, so ``import NextImage from 'next/image'`` is still the Image component.
IMPORTS: dict[tuple[str, str], Entry] = {
    ("next/image", "default"): MODULES["next/image"],
    ("next/image", "getImageProps"): Entry(
        "getImageProps next/image", f"{_APP_REF}/components/image", f"{_PAGES_REF}/components/image"
    ),
    ("next/legacy/image", "default"): MODULES["next/legacy/image"],
    ("next/link", "default"): MODULES["next/link"],
    ("next/link", "useLinkStatus"): _fn(
        "useLinkStatus", "useLinkStatus pending link", "use-link-status"
    ),
    ("next/script", "default"): MODULES["next/script"],
    ("next/form", "default"): MODULES["next/form"],
    ("next/head", "default"): MODULES["next/head"],
    ("next/dynamic", "default"): MODULES["next/dynamic"],
    ("next/font/local", "default"): MODULES["next/font/local"],
    ("next/document", "default"): MODULES["next/document"],
    ("next/document", "Html"): MODULES["next/document"],
    ("next/document", "Main"): MODULES["next/document"],
    ("next/document", "NextScript"): MODULES["next/document"],
    ("next/document", "Head"): MODULES["next/document"],
    ("next/app", "AppProps"): MODULES["next/app"],
    ("next/error", "default"): MODULES["next/error"],
    ("next/cache", "revalidatePath"): _fn(
        "revalidatePath", "revalidatePath purge cached data path"
    ),
    ("next/cache", "revalidateTag"): _fn("revalidateTag", "revalidateTag invalidate cache tag"),
    ("next/cache", "updateTag"): _fn("updateTag", "updateTag read-your-own-writes cache tag"),
    ("next/cache", "refresh"): _fn("refresh", "refresh router from server action"),
    ("next/cache", "cacheLife"): _fn("cacheLife", "cacheLife cache profile use cache"),
    ("next/cache", "cacheTag"): _fn("cacheTag", "cacheTag tag cached data use cache"),
    ("next/cache", "unstable_cache"): _fn(
        "unstable_cache", "unstable_cache cache function results"
    ),
    ("next/cache", "unstable_noStore"): _fn(
        "unstable_noStore", "unstable_noStore opt out of caching"
    ),
    ("next/headers", "cookies"): _fn("cookies", "cookies read set cookies server component"),
    ("next/headers", "headers"): _fn("headers", "headers read incoming request headers"),
    ("next/headers", "draftMode"): _fn("draftMode", "draftMode enable draft mode", "draft-mode"),
    ("next/navigation", "useRouter"): _fn(
        "useRouter", "useRouter hook App Router navigation", "use-router"
    ),
    ("next/navigation", "usePathname"): _fn(
        "usePathname", "usePathname current URL pathname", "use-pathname"
    ),
    ("next/navigation", "useSearchParams"): _fn(
        "useSearchParams", "useSearchParams query string", "use-search-params", "use-search-params"
    ),
    ("next/navigation", "useParams"): _fn(
        "useParams", "useParams dynamic route params", "use-params", "use-params"
    ),
    ("next/navigation", "useSelectedLayoutSegment"): _fn(
        "useSelectedLayoutSegment",
        "useSelectedLayoutSegment active segment",
        "use-selected-layout-segment",
    ),
    ("next/navigation", "useSelectedLayoutSegments"): _fn(
        "useSelectedLayoutSegments", "useSelectedLayoutSegments", "use-selected-layout-segments"
    ),
    ("next/navigation", "redirect"): _fn("redirect", "redirect function server component"),
    ("next/navigation", "permanentRedirect"): _fn("permanentRedirect", "permanentRedirect 308"),
    ("next/navigation", "notFound"): _fn(
        "notFound", "notFound function not-found file", "not-found"
    ),
    ("next/navigation", "forbidden"): _fn("forbidden", "forbidden function 403"),
    ("next/navigation", "unauthorized"): _fn("unauthorized", "unauthorized function 401"),
    ("next/navigation", "unstable_rethrow"): _fn("unstable_rethrow", "unstable_rethrow"),
    ("next/router", "useRouter"): Entry(
        "useRouter hook Pages Router router object", None, f"{_PAGES_REF}/functions/use-router"
    ),
    ("next/router", "default"): MODULES["next/router"],
    ("next/router", "withRouter"): Entry(
        "withRouter higher order component", None, f"{_PAGES_REF}/functions/use-router"
    ),
    ("next/server", "NextRequest"): _fn(
        "NextRequest", "NextRequest", "next-request", "next-request"
    ),
    ("next/server", "NextResponse"): _fn(
        "NextResponse", "NextResponse", "next-response", "next-response"
    ),
    ("next/server", "after"): _fn("after", "after schedule work after response"),
    ("next/server", "connection"): _fn("connection", "connection wait for incoming request"),
    ("next/server", "userAgent"): _fn("userAgent", "userAgent helper", "userAgent", "userAgent"),
    ("next/server", "ImageResponse"): _fn("ImageResponse", "ImageResponse", "image-response"),
    ("next/og", "ImageResponse"): _fn(
        "ImageResponse", "ImageResponse Open Graph", "image-response"
    ),
    ("next/web-vitals", "useReportWebVitals"): MODULES["next/web-vitals"],
    ("next", "Metadata"): Entry(
        "Metadata type metadata object", f"{_APP_REF}/functions/generate-metadata"
    ),
    ("next", "NextConfig"): Entry(
        "next.config.js NextConfig",
        f"{_APP_REF}/config/next-config-js",
        f"{_PAGES_REF}/config/next-config-js",
    ),
}

# Every ``next/font/google`` named import is a font family: one entry for all of them.
_GOOGLE_FONT = Entry(
    "next/font/google Google Fonts font optimization",
    f"{_APP_REF}/components/font",
    f"{_PAGES_REF}/components/font",
)

# Names Next.js reads from a module's exports (never imported).
EXPORTS: dict[str, Entry] = {
    "generateMetadata": _fn(
        "generateMetadata", "generateMetadata dynamic metadata", "generate-metadata"
    ),
    "metadata": Entry(
        "metadata object static metadata export", f"{_APP_REF}/functions/generate-metadata"
    ),
    "generateStaticParams": _fn(
        "generateStaticParams",
        "generateStaticParams static dynamic routes",
        "generate-static-params",
    ),
    "generateViewport": _fn("generateViewport", "generateViewport viewport", "generate-viewport"),
    "viewport": Entry("viewport object export", f"{_APP_REF}/functions/generate-viewport"),
    "generateImageMetadata": _fn(
        "generateImageMetadata", "generateImageMetadata", "generate-image-metadata"
    ),
    "generateSitemaps": _fn(
        "generateSitemaps", "generateSitemaps multiple sitemaps", "generate-sitemaps"
    ),
    "dynamicParams": Entry(
        "dynamicParams route segment config",
        f"{_APP_REF}/file-conventions/route-segment-config/dynamicParams",
    ),
    "runtime": Entry(
        "runtime route segment config edge nodejs",
        f"{_APP_REF}/file-conventions/route-segment-config/runtime",
    ),
    "preferredRegion": Entry(
        "preferredRegion route segment config",
        f"{_APP_REF}/file-conventions/route-segment-config/preferredRegion",
    ),
    "maxDuration": Entry(
        "maxDuration route segment config",
        f"{_APP_REF}/file-conventions/route-segment-config/maxDuration",
    ),
    "revalidate": Entry(
        "revalidate route segment config time-based revalidation",
        f"{_APP_REF}/file-conventions/route-segment-config",
    ),
    "dynamic": Entry(
        "dynamic route segment config force-dynamic force-static",
        f"{_APP_REF}/file-conventions/route-segment-config",
    ),
    "getServerSideProps": Entry(
        "getServerSideProps server-side rendering",
        None,
        f"{_PAGES_REF}/functions/get-server-side-props",
    ),
    "getStaticProps": Entry(
        "getStaticProps static generation", None, f"{_PAGES_REF}/functions/get-static-props"
    ),
    "getStaticPaths": Entry(
        "getStaticPaths dynamic routes static", None, f"{_PAGES_REF}/functions/get-static-paths"
    ),
    "getInitialProps": Entry("getInitialProps", None, f"{_PAGES_REF}/functions/get-initial-props"),
}

DIRECTIVES: dict[str, Entry] = {
    "use server": Entry(
        "'use server' directive Server Functions Server Actions",
        f"{_APP_REF}/directives/use-server",
    ),
    "use client": Entry(
        "'use client' directive Client Components boundary", f"{_APP_REF}/directives/use-client"
    ),
    "use cache": Entry("'use cache' directive", f"{_APP_REF}/directives/use-cache"),
    "use cache: remote": Entry(
        "'use cache: remote' directive", f"{_APP_REF}/directives/use-cache-remote"
    ),
    "use cache: private": Entry(
        "'use cache: private' directive", f"{_APP_REF}/directives/use-cache-private"
    ),
}

# Routing convention files, by file stem (``page.tsx`` -> ``page``).
CONVENTIONS: dict[str, Entry] = {
    "page": Entry(
        "page.js file convention page props params searchParams",
        f"{_APP_REF}/file-conventions/page",
        "/docs/pages/building-your-application/routing/pages-and-layouts",
    ),
    "layout": Entry(
        "layout.js file convention root layout children", f"{_APP_REF}/file-conventions/layout"
    ),
    "template": Entry("template.js file convention", f"{_APP_REF}/file-conventions/template"),
    "loading": Entry("loading.js loading UI streaming", f"{_APP_REF}/file-conventions/loading"),
    "error": Entry("error.js error boundary", f"{_APP_REF}/file-conventions/error"),
    "global-error": Entry(
        "global-error.js root error boundary", f"{_APP_REF}/file-conventions/error"
    ),
    "not-found": Entry("not-found.js file convention", f"{_APP_REF}/file-conventions/not-found"),
    "forbidden": Entry("forbidden.js file convention", f"{_APP_REF}/file-conventions/forbidden"),
    "unauthorized": Entry(
        "unauthorized.js file convention", f"{_APP_REF}/file-conventions/unauthorized"
    ),
    "default": Entry("default.js parallel routes fallback", f"{_APP_REF}/file-conventions/default"),
    "route": Entry(
        "route.js Route Handlers GET POST Request Response", f"{_APP_REF}/file-conventions/route"
    ),
    "proxy": Entry(
        "proxy.js file convention matcher NextResponse",
        f"{_APP_REF}/file-conventions/proxy",
        f"{_PAGES_REF}/file-conventions/proxy",
    ),
    "middleware": Entry(
        "middleware.js proxy file convention matcher",
        f"{_APP_REF}/file-conventions/middleware",
        f"{_PAGES_REF}/file-conventions/middleware",
    ),
    "instrumentation": Entry(
        "instrumentation.js register OpenTelemetry",
        f"{_APP_REF}/file-conventions/instrumentation",
        f"{_PAGES_REF}/file-conventions/instrumentation",
    ),
    "instrumentation-client": Entry(
        "instrumentation-client.js", f"{_APP_REF}/file-conventions/instrumentation-client"
    ),
    "mdx-components": Entry(
        "mdx-components.tsx useMDXComponents", f"{_APP_REF}/file-conventions/mdx-components"
    ),
    "_app": Entry(
        "custom App _app", None, "/docs/pages/building-your-application/routing/custom-app"
    ),
    "_document": Entry(
        "custom Document _document",
        None,
        "/docs/pages/building-your-application/routing/custom-document",
    ),
    "sitemap": Entry(
        "sitemap.xml sitemap.js metadata file", f"{_APP_REF}/file-conventions/metadata/sitemap"
    ),
    "robots": Entry(
        "robots.txt robots.js metadata file", f"{_APP_REF}/file-conventions/metadata/robots"
    ),
    "manifest": Entry(
        "manifest.json manifest.js", f"{_APP_REF}/file-conventions/metadata/manifest"
    ),
    "opengraph-image": Entry(
        "opengraph-image file convention", f"{_APP_REF}/file-conventions/metadata/opengraph-image"
    ),
    "twitter-image": Entry(
        "twitter-image file convention", f"{_APP_REF}/file-conventions/metadata/opengraph-image"
    ),
    "icon": Entry(
        "icon file convention favicon", f"{_APP_REF}/file-conventions/metadata/app-icons"
    ),
    "apple-icon": Entry(
        "apple-icon file convention", f"{_APP_REF}/file-conventions/metadata/app-icons"
    ),
}

# Convention files that only mean something inside a router folder (a ``utils/error.ts``
# is not an error boundary); the others are recognised wherever they are.
_ROUTE_ONLY = {
    "page", "layout", "template", "loading", "error", "global-error", "not-found", "forbidden",
    "unauthorized", "default", "route", "sitemap", "robots", "manifest", "opengraph-image",
    "twitter-image", "icon", "apple-icon", "_app", "_document",
}  # fmt: skip

_CONFIG_OPTIONS = (
    "adapterPath", "allowedDevOrigins", "appDir", "assetPrefix", "authInterrupts", "basePath",
    "cacheComponents", "cacheHandlers", "cacheLife", "compress", "crossOrigin", "cssChunking",
    "deploymentId", "devIndicators", "distDir", "env", "expireTime", "exportPathMap",
    "generateBuildId", "generateEtags", "headers", "htmlLimitedBots", "httpAgentOptions", "images",
    "inlineCss", "logging", "mdxRs", "onDemandEntries", "optimizePackageImports", "output",
    "pageExtensions", "poweredByHeader", "productionBrowserSourceMaps", "proxyClientMaxBodySize",
    "reactCompiler", "reactMaxHeadersLength", "reactStrictMode", "redirects", "rewrites",
    "sassOptions", "serverActions", "serverComponentsHmrCache", "serverExternalPackages",
    "staleTimes", "staticGeneration", "taint", "trailingSlash", "transpilePackages", "turbopack",
    "typedRoutes", "typescript", "urlImports", "useLightningcss", "viewTransition",
    "webVitalsAttribution", "webpack",
)  # fmt: skip

CONFIG: dict[str, Entry] = {
    name: Entry(
        f"next.config.js {name} option",
        f"{_APP_REF}/config/next-config-js/{name}",
        f"{_PAGES_REF}/config/next-config-js/{name}",
    )
    for name in _CONFIG_OPTIONS
}

SOURCE_SUFFIXES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".md", ".mdx")

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_STRING = re.compile(r"""(['"`])(?P<body>[^'"`\n]*)\1""")
_IMPORT = re.compile(
    r"""\bimport\s+(?:type\s+)?(?P<clause>[\w$\s{},*]+?)\s+from\s*(['"])(?P<module>next(?:/[\w./-]+)?)\2"""
    r"""|\brequire\(\s*(['"])(?P<required>next(?:/[\w./-]+)?)\4\s*\)""",
    re.S,
)
_EXPORT_NAME = re.compile(
    r"\bexport\s+(?:async\s+)?(?:function\*?|const|let|var)\s+([A-Za-z_$][\w$]*)"
)
_NAMESPACE = re.compile(r"\*\s+as\s+([\w$]+)")
_NAMED = re.compile(r"\{([^}]*)\}")


def imported_names(text: str) -> dict[str, tuple[str, str]]:
    """Local name -> (next module, exported name) for every import from a next module."""
    names: dict[str, tuple[str, str]] = {}
    for match in _IMPORT.finditer(text):
        module = match.group("module")
        if module is None:
            continue
        clause = match.group("clause")
        named = _NAMED.search(clause)
        if named:
            for item in named.group(1).split(","):
                parts = item.replace("type ", " ").split()
                if not parts:
                    continue
                exported = parts[0]
                local = parts[2] if len(parts) == 3 and parts[1] == "as" else exported
                names[local] = (module, exported)
        head = _NAMED.sub("", clause).replace(",", " ").strip()
        namespace = _NAMESPACE.search(head)
        if namespace:
            names[namespace.group(1)] = (module, "*")
        elif head and _IDENTIFIER.fullmatch(head.split()[0]):
            names[head.split()[0]] = (module, "default")
    return names


def as_router(value: str | None) -> Router | None:
    if value == "app":
        return "app"
    if value == "pages":
        return "pages"
    return None


def _router_of_module(module: str) -> Router | None:
    if module in ("next/router", "next/head", "next/document", "next/app", "next/legacy/image"):
        return "pages"
    if module in ("next/navigation", "next/headers", "next/cache"):
        return "app"
    return None


def document_router(text: str) -> Router | None:
    """The router a document's imports commit it to, if they do."""
    routers = {_router_of_module(module) for module, _ in imported_names(text).values()}
    routers.discard(None)
    return routers.pop() if len(routers) == 1 else None


def _resolve(
    name: str, kind: Kind, entry: Entry, router: Router | None, implied: Router | None = None
) -> Term:
    preferred = implied or router
    if preferred == "pages":
        ordered = (entry.pages_page, entry.app_page)
    else:
        ordered = (entry.app_page, entry.pages_page)
    pages = tuple(page for page in ordered if page)
    if implied is None and entry.app_page is None and entry.pages_page is not None:
        implied = "pages"
    if implied is None and entry.pages_page is None and entry.app_page is not None:
        implied = "app"
    return Term(name=name, kind=kind, query=entry.query, pages=pages, router=implied)


def _word_at(line: str, character: int) -> tuple[str, int, int] | None:
    for match in _IDENTIFIER.finditer(line):
        if match.start() <= character <= match.end():
            return match.group(0), match.start(), match.end()
    return None


def _string_at(line: str, character: int) -> str | None:
    for match in _STRING.finditer(line):
        if match.start() <= character < match.end():
            return match.group("body")
    return None


def is_config_file(file_name: str) -> bool:
    return re.fullmatch(r"next\.config\.(js|mjs|cjs|ts|mts)", file_name) is not None


def convention_of(path: PurePosixPath) -> str | None:
    """The routing convention a file is, if it is one (``app/blog/page.tsx`` -> ``page``)."""
    if path.suffix not in SOURCE_SUFFIXES and path.suffix not in (".xml", ".txt", ".json"):
        return None
    stem = path.stem
    if stem not in CONVENTIONS:
        return None
    if stem in _ROUTE_ONLY:
        folders = set(path.parts[:-1])
        if not folders & {"app", "pages"}:
            return None
        if stem in ("_app", "_document") and "pages" not in folders:
            return None
    return stem


def find_term(
    text: str, line: int, character: int, path: str, router: Router | None = None
) -> Term | None:
    """The Next.js term at ``line``/``character`` (0-based) of ``text``, or None.

    ``path`` is the document's path (only its name and folders matter); ``router`` is the
    project's router, used to choose between App and Pages Router docs when the
    document's own imports do not say.
    """
    lines = text.splitlines()
    if not 0 <= line < len(lines):
        return None
    current = lines[line]
    file_path = PurePosixPath(path.replace("\\", "/"))
    doc_router = document_router(text) or router

    string = _string_at(current, character)
    if string is not None:
        return _term_in_string(string, doc_router)

    word = _word_at(current, character)
    if word is not None:
        found = _term_for_word(word[0], current, text, file_path, doc_router)
        if found is not None:
            return found

    convention = convention_of(file_path)
    if convention is not None and (line == 0 or re.search(r"\bexport\s+default\b", current)):
        return _resolve(file_path.name, "convention", CONVENTIONS[convention], doc_router)
    return None


def _term_in_string(string: str, router: Router | None) -> Term | None:
    body = string.strip()
    if body in DIRECTIVES:
        return _resolve(body, "directive", DIRECTIVES[body], router)
    if body in MODULES:
        return _resolve(body, "module", MODULES[body], router, _router_of_module(body))
    return None


def _term_for_word(
    word: str, current: str, text: str, path: PurePosixPath, router: Router | None
) -> Term | None:
    imports = imported_names(text)
    if word in imports:
        module, exported = imports[word]
        entry = IMPORTS.get((module, exported))
        if entry is None and module == "next/font/google" and exported != "default":
            entry = _GOOGLE_FONT
        if entry is None:
            entry = MODULES.get(module)
        if entry is not None:
            kind: Kind = "component" if word[:1].isupper() else "function"
            shown = exported if exported not in ("default", "*") else module
            return _resolve(shown, kind, entry, router, _router_of_module(module))
        return None

    if word in EXPORTS and word in _exported_names(text):
        # Route segment config words are ordinary names elsewhere: only the export counts.
        return _resolve(word, "export", EXPORTS[word], router)

    is_option = re.search(rf"\b{re.escape(word)}\s*[:(]", current) is not None
    if is_config_file(path.name) and word in CONFIG and is_option:
        return _resolve(word, "config", CONFIG[word], router)
    return None


def _exported_names(text: str) -> set[str]:
    return set(_EXPORT_NAME.findall(text))

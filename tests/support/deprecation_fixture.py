"""A Next.js 16.4.6 project with known uses of deprecated APIs, for measuring diagnostics.

``LABELLED`` holds files with the uses a reader of the 16.4.6 docs would flag, each
labelled ``(file, line, name)``; ``CLEAN`` holds files that look alike but use no
deprecated Next.js API (other packages, local names, current names, comments). Some
labelled uses are written in ways the server does not read (a dynamic ``import()``),
so recall is measured honestly.
"""

from pathlib import Path

VERSION = "16.4.6"

LABELLED: dict[str, str] = {
    "middleware.ts": (
        "import { NextResponse } from 'next/server'  // label: middleware.ts\n"
        "export function middleware() { return NextResponse.next() }\n"
    ),
    "next.config.ts": (
        "const config = {\n"
        "  skipMiddlewareUrlNormalize: true,  // label: skipMiddlewareUrlNormalize\n"
        "  bundlePagesExternals: true,  // label: bundlePagesExternals\n"
        "  experimental: {\n"
        "    skipMiddlewareUrlNormalize: true,  // label: experimental.skipMiddlewareUrlNormalize\n"
        "  },\n"
        "}\n"
        "export default config\n"
    ),
    "app/products/page.tsx": (
        "import Image from 'next/legacy/image'  // label: next/legacy/image\n"
        "import { unstable_cacheLife } from 'next/cache'  // label: unstable_cacheLife\n"
        "import { unstable_cacheTag as tag } from 'next/cache'  // label: unstable_cacheTag\n"
        "export const unstable_instant = { prefetch: 'static' }  // label: unstable_instant\n"
        "export default async function Page() {\n"
        "  'use cache'\n"
        "  unstable_cacheLife('hours')\n"
        "  tag('products')\n"
        "  return <Image src='/p.png' alt='' width={10} height={10} />\n"
        "}\n"
    ),
    "app/api/route.ts": (
        "import { unstable_noStore as noStore } from 'next/cache'  // label: unstable_noStore\n"
        "export const preferredRegion = 'home'  // label: preferredRegion\n"
        "export const unstable_prefetch = 'force'  // label: unstable_prefetch\n"
        "export async function GET() { noStore(); return Response.json({}) }\n"
    ),
    "app/nav.tsx": (
        "import { unstable_navigation, unstable_prefetch } from 'next/cache'"
        "  // label: unstable_navigation, unstable_prefetch\n"
        "const LegacyImage = require('next/future/image')  // label: next/future/image\n"
        "export async function load() {\n"
        "  const { unstable_cacheTag } = await import('next/cache')  // label: unstable_cacheTag\n"
        "  unstable_navigation(); unstable_prefetch(); unstable_cacheTag('x')\n"
        "}\n"
    ),
    "src/components/Thumb.tsx": (
        "import Img from 'next/legacy/image'  // label: next/legacy/image\n"
        "export const Thumb = () => <Img src='/t.png' alt='' width={1} height={1} />\n"
    ),
}

CLEAN: dict[str, str] = {
    "lib/middleware.ts": "export function middleware() { return 1 }\n",
    "app/page.tsx": (
        "import Image from 'next/image'\n"
        "import { cacheLife, cacheTag } from 'next/cache'\n"
        "import { connection } from 'next/server'\n"
        "export const instant = { prefetch: 'static' }\n"
        "export default async function Page() {\n"
        "  await connection(); cacheLife('hours'); cacheTag('home')\n"
        "  return <Image src='/a.png' alt='' width={1} height={1} />\n"
        "}\n"
    ),
    "app/gallery.tsx": (
        "import Image from 'ui-kit/legacy/image'\n"
        "import { unstable_cacheLife } from 'my-cache-lib'\n"
        "// next/legacy/image was replaced; unstable_cacheLife too\n"
        "function middleware() {}\n"
        "const unstable_noStore = () => middleware()\n"
        "export default function Gallery() { unstable_noStore(); unstable_cacheLife() }\n"
    ),
    "lib/util.ts": (
        "export const preferredRegion = 'not a route file'\n"
        "export const unstable_instant = true\n"
        "const settings = { skipMiddlewareUrlNormalize: true }\n"
        "export default settings\n"
    ),
    "next.config.mjs": (
        "export default {\n"
        "  skipProxyUrlNormalize: true,\n"
        "  bundlePagesRouterDependencies: true,\n"
        "  images: { remotePatterns: [] },\n"
        "}\n"
    ),
    "src/proxy.ts": "export function proxy() {}\n",
    "pages/legacy.tsx": (
        "import Link from 'next/link'\nexport default () => <Link href='/'>x</Link>\n"
    ),
}


def labels() -> set[tuple[str, int, str]]:
    """(file, 0-based line, name) of every labelled use."""
    found = set()
    for name, text in LABELLED.items():
        for number, line in enumerate(text.split("\n")):
            if "// label: " in line:
                for label in line.split("// label: ", 1)[1].split(","):
                    found.add((name, number, label.strip()))
    return found


def build(root: Path) -> Path:
    """Write the project under ``root`` (``node_modules/next`` says 16.4.6)."""
    for name, text in {**LABELLED, **CLEAN}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "package.json").write_text('{"dependencies": {"next": "^16.4.0"}}\n')
    next_package = root / "node_modules" / "next" / "package.json"
    next_package.parent.mkdir(parents=True)
    next_package.write_text(f'{{"name": "next", "version": "{VERSION}"}}\n')
    return root

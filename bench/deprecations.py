"""Bench row: the time to compute one file's deprecation diagnostics.

The file is a generated 500-line page of a Next.js app: imports from ``next`` modules
(some of them deprecated in the version measured), components, hooks and plain code,
the shape of a large route file. What is timed is what the server does per file after
the catalog is loaded: parse with tree-sitter, read the references, match them against
the catalog, build the fixes (:func:`find_deprecations`).
"""

from bench.report import Row
from bench.stats import summarize, time_calls
from raggin_lsp.code.deprecations import find_deprecations
from raggin_lsp.corpus.apis import ApiCatalog

GROUP = "diagnostics"
LINES = 500

_HEAD = """'use client'
import Image from 'next/legacy/image'
import Link from 'next/link'
import { useRouter, usePathname } from 'next/navigation'
import { unstable_cacheLife, unstable_cacheTag, revalidatePath } from 'next/cache'
import { unstable_noStore } from 'next/cache'
import { useState, useEffect } from 'react'
import clsx from 'clsx'
"""

_BLOCK = """
export function Card{n}({{ title, href }}: {{ title: string; href: string }}) {{
  const router = useRouter()
  const pathname = usePathname()
  const [open, setOpen] = useState(false)
  useEffect(() => {{ unstable_cacheTag('card-{n}') }}, [pathname])
  return (
    <div className={{clsx('card', open && 'open')}} onClick={{() => setOpen(!open)}}>
      <Image src="/card-{n}.png" alt={{title}} width={{64}} height={{64}} />
      <Link href={{href}}>{{title}}</Link>
      <button onClick={{() => router.push(href)}}>Go</button>
    </div>
  )
}}
"""


def sample_file(lines: int = LINES) -> str:
    """A page of about ``lines`` lines (ends with a default export)."""
    parts = [_HEAD]
    n = 0
    while sum(part.count("\n") for part in parts) < lines - 4:
        parts.append(_BLOCK.format(n=n))
        n += 1
    parts.append("export default function Page() {\n  unstable_cacheLife('hours')\n}\n")
    return "".join(parts)


def measure(catalog: ApiCatalog, repeat: int = 50) -> Row:
    text = sample_file()
    path = "/project/app/cards/page.tsx"
    found = find_deprecations(catalog, text, path, "app/cards/page.tsx")  # warm-up
    seconds = time_calls(
        lambda: find_deprecations(catalog, text, path, "app/cards/page.tsx"), repeat
    )
    milliseconds = [s * 1000 for s in seconds]
    note = (
        f"{text.count(chr(10))}-line page, {len(found)} findings, Next.js {catalog.version} catalog"
    )
    return Row.of(GROUP, f"diagnostics of a {LINES}-line file", "ms", summarize(milliseconds), note)

"""What a developer's question asks, once the noise around it is gone (no LLM involved).

Real questions arrive with pasted terminal output, stack traces, file paths and links,
and often ask two things at once. Both the dense model (MiniLM reads 256 word pieces)
and BM25 drown in that noise, so before retrieval a question is reduced to:

* ``text``: the prose and the error *messages*, without stack frames, paths, package
  script lines, timestamps and URLs (a nextjs.org error link keeps its slug, which names
  the problem: ``/docs/messages/sync-dynamic-apis`` -> ``sync dynamic apis``);
* ``focus``: the question sentences and error messages first, cut to what the dense model
  reads;
* ``parts``: the separate questions when there are several ("is there a codemod, and how
  should the types look?"), searched as sub-queries and fused;
* ``identifiers``: the API names it uses (``revalidatePath``, ``next/image``,
  ``middleware.ts``, ``images.remotePatterns``, ``--turbopack``), for exact API routing;
* ``router``: the router the question implies (``app/``, ``'use client'``,
  ``getServerSideProps``...), when it implies one.

Short, clean questions pass through unchanged.
"""

import re
from dataclasses import dataclass

# A question shorter than this with no code fence is taken as it is.
_SHORT = 160
# Roughly what MiniLM reads (256 word pieces): the dense query keeps this many words.
FOCUS_WORDS = 90
_MAX_PARTS = 3

_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_URL = re.compile(r"https?://[^\s)\]>\"'`]+")
_DOCS_MESSAGE = re.compile(r"nextjs\.org/docs/messages/([a-z0-9-]+)")
_STACK_FRAME = re.compile(r"^\s*(at\s|\.\.\.\s*\d+\s+more|#\d+\s)")
_SCRIPT_LINE = re.compile(r"^\s*(>\s*\S+@\S+|\$\s|npm (warn|notice)|yarn run|pnpm run)", re.I)
_TIMESTAMP = re.compile(r"\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b|\b\d{4}-\d{2}-\d{2}T[\d:.]+Z?\b")
_PATH = re.compile(r"(?<![\w@])(?:\.{0,2}/)?(?:[\w.\[\]()@+-]+/){2,}[\w.\[\]()@+-]*(?::\d+){0,2}")
_SYSTEM_ROOTS = ("/home/", "/Users/", "/usr/", "/var/", "/opt/", "/tmp/", "/srv/", ".next/")
_PROGRESS = re.compile(r"^[\s✓○●λƒ◐▲├└│┌─=\-|*#>.]*$")
# What Next.js and npm print before a message: warning sign, cross, check mark, bullets.
_MARKS = "\u26a0\u2a2f\u2717\u00d7\u2713\u25cb\u25cf"
_ERRORISH = re.compile(
    r"error|warn|[\u26a0\u2a2f]|fail|cannot|can't|could not|couldn't|unable|invalid"
    r"|not (found|supported|allowed|a function|defined)|deprecated|unhandled|mismatch|refused"
    r"|denied|exceeded|timed? ?out|missing|unexpected|only .* in|must|should not|isn't|is not",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.?!])\s+|\n+")
_QUESTION_WORDS = re.compile(
    r"^\s*(how|what|why|where|when|which|is|are|can|could|do|does|did|should|would|any|"
    r"anyone|is there|whats|what's|hows|pls|please)\b",
    re.IGNORECASE,
)

_IDENTIFIER_PATTERNS = (
    re.compile(r"`([^`\n]{2,60})`"),  # anything in backticks
    re.compile(r"\b(next/[a-z][\w/-]*)"),  # import paths
    re.compile(r"(?<![\w.])(@next/[a-z][\w/-]*)"),
    re.compile(r"\b([a-z]+[A-Z][A-Za-z0-9]*)\b"),  # camelCase
    re.compile(r"\b(use[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*)\b"),  # hooks, PascalCase components
    re.compile(r"\b([\w-]+\.(?:config\.)?(?:js|mjs|cjs|ts|tsx|jsx))\b"),  # file names
    re.compile(r"\b(next (?:build|dev|start|export|lint|info|telemetry|typegen))\b"),
    re.compile(r"(?<![\w-])(--[a-z][\w-]+)"),  # CLI flags
    re.compile(r"\b([a-z]+\.[a-z][A-Za-z]+)\b"),  # config keys: images.remotePatterns
)

_APP_SIGNALS = re.compile(
    r"app router|app (dir(ectory)?|folder)|\bapp/|/app\b|server components?|server actions?|"
    r"['\"]use (client|server)['\"]|\buse (client|server)\b|layout\.(t|j)sx?|page\.(t|j)sx?|"
    r"route\.(t|j)s|generateMetadata|generateStaticParams|route handlers?|\brsc\b",
    re.IGNORECASE,
)
_PAGES_SIGNALS = re.compile(
    r"pages router|pages (dir(ectory)?|folder)|\bpages/|getServerSideProps|getStaticProps|"
    r"getStaticPaths|getInitialProps|_app\.(t|j)sx?|_document\.(t|j)sx?|next/router\b|"
    r"pages/api|api routes?\b",
    re.IGNORECASE,
)
# "... with swr in pages": the router named at the end of a short question.
_IN_PAGES = re.compile(r"\bin (the )?pages\b(?=[\s.?!]*$)", re.IGNORECASE)
_STRONG_APP = re.compile(r"app router|app (dir(ectory)?|folder)|\bapp/", re.IGNORECASE)
_STRONG_PAGES = re.compile(r"pages router|pages (dir|folder)", re.IGNORECASE)


@dataclass(frozen=True)
class QueryAnalysis:
    original: str
    text: str
    focus: str
    parts: tuple[str, ...]
    identifiers: tuple[str, ...]
    router: str | None

    @property
    def cleaned(self) -> bool:
        return self.text != self.original


def analyze(question: str) -> QueryAnalysis:
    """Reduce a question to what retrieval should see (see the module docstring)."""
    original = question.strip()
    identifiers = find_identifiers(original)
    router = implied_router(original)
    if len(original) < _SHORT and "```" not in original and "\n" not in original:
        return QueryAnalysis(original, original, original, (), identifiers, router)

    errors: list[str] = []

    def keep_fence(match: re.Match[str]) -> str:
        errors.extend(error_lines(match.group(1)))
        return "\n"

    prose = _FENCE.sub(keep_fence, original)
    prose_lines = []
    for line in prose.splitlines():
        if _STACK_FRAME.match(line) or _SCRIPT_LINE.match(line):
            continue
        if _ERRORISH.search(line) and len(line) < 400 and _looks_like_output(line):
            errors.extend(error_lines(line))
            continue
        prose_lines.append(_clean_line(line))
    sentences = [s.strip() for s in _SENTENCE.split("\n".join(prose_lines)) if len(s.strip()) > 2]
    asks = [s for s in sentences if s.endswith("?") or _QUESTION_WORDS.match(s)]
    errors = list(dict.fromkeys(errors))[:4]
    text = " ".join([*sentences, *errors]).strip() or original
    rest = [s for s in sentences if s not in asks]
    focus = _first_words(" ".join([*asks, *errors, *rest]) or text, FOCUS_WORDS)
    parts = tuple(asks[:_MAX_PARTS]) if len(asks) > 1 else ()
    if errors and (asks or len(sentences) > 1):
        parts = (*parts, " ".join(errors[:2]))
    return QueryAnalysis(original, text, focus, parts, find_identifiers(text), router)


def error_lines(block: str) -> list[str]:
    """The messages of pasted output: no stack frames, paths, progress bars or timestamps."""
    kept: list[str] = []
    for raw in block.splitlines():
        if _STACK_FRAME.match(raw) or _SCRIPT_LINE.match(raw) or _PROGRESS.match(raw):
            continue
        line = _clean_line(raw)
        if len(line) < 4:
            continue
        if _ERRORISH.search(line) or not kept:
            kept.append(line[:300])
    return kept


def _looks_like_output(line: str) -> bool:
    """A log line pasted into prose (``Error: ...``, a marked line, ``Warning: ...``)."""
    stripped = line.strip()
    return bool(
        re.match(f"^([{_MARKS}]|\\w*(Error|Warning|error|warn)\\b[:\\s]|\\[\\w+\\])", stripped)
    )


def _clean_line(line: str) -> str:
    def url(match: re.Match[str]) -> str:
        slug = _DOCS_MESSAGE.search(match.group(0))
        return slug.group(1).replace("-", " ") if slug else ""

    line = _URL.sub(url, line)
    line = _TIMESTAMP.sub("", line)
    line = _PATH.sub(lambda m: _basename(m.group(0)), line)
    line = line.replace("webpack-internal:///", "").replace("npm ERR!", "")
    line = re.sub(f"[{_MARKS}]", " ", line)
    return re.sub(r"\s+", " ", line).strip()


def _project_path(match: re.Match[str]) -> str:
    """A path of the project (``app/blog/page.tsx``) stays; one of the machine
    (``/home/app/node_modules/next/...``) says nothing about the router."""
    path = match.group(0)
    return "" if "node_modules" in path or path.startswith(_SYSTEM_ROOTS) else path


def _basename(path: str) -> str:
    if "node_modules" in path or path.startswith(".next"):
        return ""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return re.sub(r"(:\d+)+$", "", name)


def _first_words(text: str, count: int) -> str:
    words = text.split()
    return " ".join(words[:count])


def find_identifiers(text: str) -> tuple[str, ...]:
    """API-like names in the question, in order of appearance, without duplicates."""
    found: list[tuple[int, str]] = []
    for pattern in _IDENTIFIER_PATTERNS:
        for match in pattern.finditer(text):
            value = match.group(1).strip().strip("'\"")
            if 2 <= len(value) <= 60 and not value.startswith(("http", "www.")):
                found.append((match.start(1), value))
    found.sort()
    return tuple(dict.fromkeys(value for _, value in found))


def implied_router(text: str) -> str | None:
    """``app`` or ``pages`` when the question says which router it is about, else None.

    An explicit App Router mention wins over Pages Router API names: people ask how to
    do ``getServerSideProps`` "in the app dir"."""
    text = _PATH.sub(_project_path, text)
    app = len(_APP_SIGNALS.findall(text))
    pages = len(_PAGES_SIGNALS.findall(text)) + len(_IN_PAGES.findall(text))
    if app and _STRONG_APP.search(text) and not _STRONG_PAGES.search(text):
        return "app"
    if app > pages:
        return "app"
    if pages > app:
        return "pages"
    return None

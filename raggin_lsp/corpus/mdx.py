"""Turn an MDX page body of the Next.js docs into plain Markdown for one router.

nextjs.org renders each shared source once per router: ``<AppOnly>`` content shows
only in the App Router docs, ``<PagesOnly>`` content only in the Pages Router docs.
Everything else JSX is either meaningful text (the ``<summary>`` of a ``<details>``,
the ``alt`` of an ``<Image>``, a ``caption`` or card ``title``) or layout, which is
dropped while its children are kept. MDX comments ``{/* ... */}`` and HTML comments
disappear. Fenced code is never looked into: a tag inside a fence is code.

Broken markup never raises and never swallows the rest of a page:

- an unclosed ``<AppOnly>``/``<PagesOnly>`` (or a stray closing tag) is ignored, so
  its content is kept for both routers, and a warning is recorded;
- an unterminated tag (``<Image alt="x"`` with no ``>`` before a blank line) or an
  unclosed comment is kept as literal text, with a warning.
"""

import re
from dataclasses import dataclass, field
from typing import Literal

TargetRouter = Literal["app", "pages"]
TagKind = Literal["open", "close", "self"]

ROUTER_WRAPPERS: dict[str, TargetRouter] = {"AppOnly": "app", "PagesOnly": "pages"}

_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_INTERESTING = re.compile(r"[\\`{<]")
_TAG_START = re.compile(r"<(/?)([A-Za-z][\w.:-]*)")
_BLANK_LINE_AHEAD = re.compile(r"\n[ \t]*(\n|$)")
_ATTRIBUTE = re.compile(
    r"""([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|\{\s*(?:"([^"]*)"|'([^']*)'|`([^`]*)`)\s*\})"""
)
# Attributes whose value is prose a reader of the page sees (or a screen reader hears).
_TEXT_ATTRIBUTES = ("alt", "caption", "title")
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class MdxResult:
    markdown: str
    warnings: tuple[str, ...] = ()


@dataclass
class _Text:
    text: str


@dataclass
class _Tag:
    name: str
    kind: TagKind
    raw: str
    line: int
    line_alone: bool
    attrs: dict[str, str] = field(default_factory=dict)
    partner: int | None = None  # index of the matching open/close event


_Event = _Text | _Tag


def clean_mdx(body: str, router: TargetRouter) -> MdxResult:
    """Plain Markdown of ``body`` as the ``router`` docs show it."""
    warnings: list[str] = []
    events = _tokenize(body, warnings)
    _pair_tags(events, warnings)
    return MdxResult(_emit(events, router), tuple(warnings))


def split_fences(body: str) -> list[tuple[bool, str, int]]:
    """(is_code, text, first line number) pieces; an unclosed fence runs to the end."""
    pieces: list[tuple[bool, str, int]] = []
    lines = body.splitlines(keepends=True)
    prose: list[str] = []
    prose_start = 1
    index = 0
    while index < len(lines):
        match = _FENCE_OPEN.match(lines[index].rstrip("\r\n"))
        # A backtick fence's info string cannot hold a backtick (CommonMark 4.5).
        if match is None or (match.group(1)[0] == "`" and "`" in match.group(2)):
            prose.append(lines[index])
            index += 1
            continue
        if prose:
            pieces.append((False, "".join(prose), prose_start))
            prose = []
        marker = match.group(1)
        start = index
        index += 1
        while index < len(lines):
            closing = lines[index].strip()
            index += 1
            if len(closing) >= len(marker) and set(closing) == {marker[0]}:
                break
        pieces.append((True, "".join(lines[start:index]), start + 1))
        prose_start = index + 1
    if prose:
        pieces.append((False, "".join(prose), prose_start))
    return pieces


def _tokenize(body: str, warnings: list[str]) -> list[_Event]:
    events: list[_Event] = []
    for is_code, text, first_line in split_fences(body):
        if is_code:
            events.append(_Text(text))
        else:
            _scan_prose(text, first_line, events, warnings)
    return events


def _scan_prose(text: str, first_line: int, events: list[_Event], warnings: list[str]) -> None:
    buffer: list[str] = []
    position = 0
    length = len(text)

    def line_of(offset: int) -> int:
        return first_line + text.count("\n", 0, offset)

    def flush() -> None:
        if buffer:
            events.append(_Text("".join(buffer)))
            buffer.clear()

    while position < length:
        match = _INTERESTING.search(text, position)
        if match is None:
            buffer.append(text[position:])
            break
        start = match.start()
        buffer.append(text[position:start])
        char = text[start]
        if char == "\\":
            buffer.append(text[start : start + 2])
            position = start + 2
        elif char == "`":
            position = _skip_code_span(text, start, buffer)
        elif text.startswith("{/*", start):
            position = _skip_comment(text, start, "{/*", "*/}", buffer, line_of(start), warnings)
        elif text.startswith("<!--", start):
            position = _skip_comment(text, start, "<!--", "-->", buffer, line_of(start), warnings)
        elif char == "<":
            scanned = _scan_tag(text, start)
            if scanned is None:
                _note_unterminated(text, start, line_of(start), warnings)
                buffer.append("<")
                position = start + 1
                continue
            tag, end = scanned
            line_start = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", end)
            line_end = length if line_end == -1 else line_end
            before = text[line_start:start]
            after = text[end:line_end]
            tag.line = line_of(start)
            tag.line_alone = not before.strip() and not after.strip()
            if tag.line_alone:
                # The tag owns its whole line(s): drop the indentation before it and the
                # rest of the line after it, so no stray indent turns text into code.
                if buffer:
                    buffer[-1] = buffer[-1].rstrip(" \t")
                end = min(line_end + 1, length)
            flush()
            events.append(tag)
            position = end
        else:
            buffer.append(char)
            position = start + 1
    flush()


def _skip_code_span(text: str, start: int, buffer: list[str]) -> int:
    run_end = start
    while run_end < len(text) and text[run_end] == "`":
        run_end += 1
    run = text[start:run_end]
    search = run_end
    while True:
        close = text.find(run, search)
        if close == -1:
            buffer.append(run)
            return run_end
        close_end = close + len(run)
        if close_end < len(text) and text[close_end] == "`":
            search = close_end
            while search < len(text) and text[search] == "`":
                search += 1
            continue
        buffer.append(text[start:close_end])
        return close_end


def _skip_comment(
    text: str,
    start: int,
    opener: str,
    closer: str,
    buffer: list[str],
    line: int,
    warnings: list[str],
) -> int:
    end = text.find(closer, start + len(opener))
    if end == -1:
        warnings.append(f"line {line}: unclosed comment {opener} kept as text")
        return start + len(opener)
    return end + len(closer)


def _note_unterminated(text: str, start: int, line: int, warnings: list[str]) -> None:
    """Warn about ``<Name attr=...`` that never reaches its ``>``; ``a <b`` is no tag."""
    match = _TAG_START.match(text, start)
    if match is None or match.group(1):
        return
    end = match.end()
    if end >= len(text) or text[end] in " \t\r\n/":
        warnings.append(f"line {line}: unterminated <{match.group(2)}> tag kept as text")


def _scan_tag(text: str, start: int) -> tuple[_Tag, int] | None:
    match = _TAG_START.match(text, start)
    if match is None:
        return None
    position = match.end()
    length = len(text)
    if position < length and text[position] not in " \t\r\n/>":
        return None  # "<https://..." autolinks, "<a-b" and the like
    depth = 0
    quote = ""
    while position < length:
        char = text[position]
        if quote:
            if char == "\\" and depth:
                position += 2
                continue
            if char == quote:
                quote = ""
        elif char in "\"'" or (char == "`" and depth):
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
        elif char == ">" and depth == 0:
            raw = text[start : position + 1]
            closing = bool(match.group(1))
            kind: TagKind = "close" if closing else ("self" if raw[-2] == "/" else "open")
            attrs = {} if closing else _attributes(raw)
            tag = _Tag(match.group(2), kind, raw, 0, False, attrs)
            return tag, position + 1
        elif char == "\n" and depth == 0 and _BLANK_LINE_AHEAD.match(text, position):
            return None
        position += 1
    return None


def _attributes(raw: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(raw):
        value = next((group for group in match.groups()[1:] if group is not None), "")
        values[match.group(1)] = value
    return values


def _pair_tags(events: list[_Event], warnings: list[str]) -> None:
    """Match open and close tags with a stack; unmatched ones stay partner-less."""
    stack: list[int] = []
    for index, event in enumerate(events):
        if not isinstance(event, _Tag) or event.kind == "self":
            continue
        if event.kind == "open":
            stack.append(index)
            continue
        match_at = next(
            (
                depth
                for depth in range(len(stack) - 1, -1, -1)
                if _tag(events, stack[depth]).name == event.name
            ),
            None,
        )
        if match_at is None:
            if event.name in ROUTER_WRAPPERS:
                warnings.append(f"line {event.line}: stray </{event.name}> ignored")
            continue
        for unclosed in stack[match_at + 1 :]:
            _warn_unclosed(_tag(events, unclosed), warnings)
        opener = stack[match_at]
        del stack[match_at:]
        _tag(events, opener).partner = index
        event.partner = opener
    for unclosed in stack:
        _warn_unclosed(_tag(events, unclosed), warnings)


def _tag(events: list[_Event], index: int) -> _Tag:
    event = events[index]
    assert isinstance(event, _Tag)
    return event


def _warn_unclosed(tag: _Tag, warnings: list[str]) -> None:
    if tag.name in ROUTER_WRAPPERS:
        warnings.append(
            f"line {tag.line}: unclosed <{tag.name}>, its content is kept for every router"
        )


def _emit(events: list[_Event], router: TargetRouter) -> str:
    out: list[str] = []
    index = 0
    while index < len(events):
        event = events[index]
        index += 1
        if isinstance(event, _Text):
            out.append(event.text)
            continue
        separator = "\n" if event.line_alone else ""
        wrapper_router = ROUTER_WRAPPERS.get(event.name)
        if wrapper_router is not None:
            if event.kind == "open" and event.partner is not None and wrapper_router != router:
                closer = _tag(events, event.partner)
                index = event.partner + 1
                out.append("\n" if event.line_alone or closer.line_alone else "")
            else:
                out.append(separator)
            continue
        if event.name == "summary" and event.kind == "open" and event.partner is not None:
            inner = " ".join(e.text for e in events[index : event.partner] if isinstance(e, _Text))
            summary = _WHITESPACE.sub(" ", inner).strip()
            out.append(f"\n\n**{summary}**\n\n" if summary else separator)
            index = event.partner + 1
            continue
        out.append(_replacement(event))
    return "".join(out)


def _replacement(tag: _Tag) -> str:
    """What a reader gets from a non-wrapper tag: its visible text, or a separator."""
    if tag.name.lower() == "br":
        return "\n" if tag.line_alone else " "
    if tag.kind != "close":
        shown = next((tag.attrs[name] for name in _TEXT_ATTRIBUTES if tag.attrs.get(name)), "")
        is_component = tag.name[0].isupper() or tag.name in ("img", "video")
        if shown and is_component:
            shown = _WHITESPACE.sub(" ", shown).strip()
            return f"\n{shown}\n\n" if tag.line_alone else shown
    return "\n" if tag.line_alone else ""

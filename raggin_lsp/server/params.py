"""Parameters of the ``raggin/*`` requests and commands, checked field by field (pure).

pygls hands custom params over as nested namedtuples (or whatever JSON value came);
:func:`plain` turns them back into JSON values, and each ``parse_*`` function returns a
frozen dataclass or raises :class:`ParamError` naming the field, the expected type and
what arrived, which the server answers with ``InvalidParams``.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Token = int | str
_TOKEN_TYPES = (int, str)
ROUTERS = ("app", "pages")


class ParamError(ValueError):
    """Malformed request parameters; the message is written for the client's author."""


def plain(value: Any) -> Any:
    """JSON values back from pygls's namedtuples (``_asdict``), recursively."""
    as_dict = getattr(value, "_asdict", None)
    if callable(as_dict) and isinstance(value, tuple):
        return {key: plain(item) for key, item in as_dict().items()}
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


class Fields:
    """Reads one params object, with errors that name the field path."""

    def __init__(self, raw: Any, where: str = "params") -> None:
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise ParamError(f"{where} must be an object, got {json_kind(raw)}")
        self.raw = raw
        self.where = where

    def _path(self, key: str) -> str:
        return key if self.where == "params" else f"{self.where}.{key}"

    def _wrong(self, key: str, expected: str, value: Any) -> ParamError:
        return ParamError(f"{self._path(key)} must be {expected}, got {json_kind(value)}")

    def string(self, key: str, *, required: bool = False, empty: bool = False) -> str | None:
        value = self.raw.get(key)
        if value is None:
            if required:
                raise ParamError(f"{self._path(key)} is required (a string)")
            return None
        if not isinstance(value, str):
            raise self._wrong(key, "a string", value)
        if not empty and not value.strip():
            raise ParamError(f"{self._path(key)} must not be empty")
        return value

    def required_string(self, key: str) -> str:
        value = self.string(key, required=True)
        assert value is not None
        return value

    def integer(self, key: str, low: int, high: int) -> int | None:
        value = self.raw.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(key, "an integer", value)
        if not low <= value <= high:
            raise ParamError(f"{self._path(key)} must be from {low} to {high}, got {value}")
        return value

    def choice(self, key: str, choices: Sequence[str]) -> str | None:
        value = self.string(key)
        if value is not None and value not in choices:
            raise ParamError(
                f"{self._path(key)} must be one of {', '.join(choices)}, got {value!r}"
            )
        return value

    def token(self, key: str) -> Token | None:
        value = self.raw.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, _TOKEN_TYPES):
            raise self._wrong(key, "a string or an integer", value)
        return value

    def obj(self, key: str) -> "Fields | None":
        value = self.raw.get(key)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise self._wrong(key, "an object", value)
        return Fields(value, self._path(key))

    def array(self, key: str) -> list[Any]:
        value = self.raw.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self._wrong(key, "an array", value)
        return value


@dataclass(frozen=True)
class Position:
    line: int
    character: int


@dataclass(frozen=True)
class Span:
    start: Position
    end: Position

    @property
    def empty(self) -> bool:
        return self.start == self.end


@dataclass(frozen=True)
class InlineFile:
    name: str
    text: str


@dataclass(frozen=True)
class HistoryTurn:
    question: str
    answer: str


@dataclass(frozen=True)
class SearchParams:
    query: str
    code: str | None = None
    version: str | None = None
    router: str | None = None
    top_k: int | None = None
    uri: str | None = None


@dataclass(frozen=True)
class AskParams:
    question: str
    uri: str | None = None
    span: Span | None = None
    files: tuple[str | InlineFile, ...] = ()
    history: tuple[HistoryTurn, ...] = ()
    version: str | None = None
    router: str | None = None
    model: str | None = None
    options: dict[str, Any] | None = None
    work_done_token: Token | None = None
    partial_result_token: Token | None = None


@dataclass(frozen=True)
class VersionParams:
    version: str | None = None
    uri: str | None = None
    work_done_token: Token | None = None


@dataclass(frozen=True)
class DiffParams:
    since: str
    until: str | None = None  # the document's version when None
    api: str | None = None
    uri: str | None = None


def _uri(fields: Fields) -> str | None:
    """``textDocument`` as ``{"uri": ...}`` (LSP style) or, in commands, a plain URI."""
    value = fields.raw.get("textDocument")
    if value is None or isinstance(value, str):
        return value or None
    document = fields.obj("textDocument")
    assert document is not None
    return document.required_string("uri")


def _position(fields: Fields | None, key: str) -> Position:
    if fields is None:
        raise ParamError(f"{key} is required")
    line = fields.integer("line", 0, 10_000_000)
    character = fields.integer("character", 0, 10_000_000)
    if line is None or character is None:
        raise ParamError(f"{fields.where} needs line and character (integers)")
    return Position(line, character)


def _span(fields: Fields) -> Span | None:
    span = fields.obj("range")
    if span is None:
        return None
    start = _position(span.obj("start"), f"{span.where}.start")
    end = _position(span.obj("end"), f"{span.where}.end")
    if (end.line, end.character) < (start.line, start.character):
        raise ParamError("range.end must not come before range.start")
    return Span(start, end)


def _version(fields: Fields) -> str | None:
    version = fields.string("version")
    return version.strip() if version is not None else None


def parse_search(raw: Any) -> SearchParams:
    fields = Fields(plain(raw))
    return SearchParams(
        query=fields.required_string("query"),
        code=fields.string("code"),
        version=_version(fields),
        router=fields.choice("router", ROUTERS),
        top_k=fields.integer("topK", 1, 50),
        uri=_uri(fields),
    )


def parse_ask(raw: Any) -> AskParams:
    fields = Fields(plain(raw))
    files: list[str | InlineFile] = []
    for index, item in enumerate(fields.array("files")):
        if isinstance(item, str):
            files.append(item)
            continue
        entry = Fields(item, f"files[{index}]")
        name = entry.required_string("name")
        text = entry.string("text", required=True, empty=True)
        assert text is not None
        files.append(InlineFile(name, text))
    history: list[HistoryTurn] = []
    for index, item in enumerate(fields.array("history")):
        turn = Fields(item, f"history[{index}]")
        answer = turn.string("answer", required=True, empty=True)
        assert answer is not None
        history.append(HistoryTurn(turn.required_string("question"), answer))
    options = fields.obj("options")
    if options is not None:
        for key, value in options.raw.items():
            if not isinstance(value, bool | int | float | str | list):
                raise ParamError(f"options.{key} must be a number, string, boolean or array")
    return AskParams(
        question=fields.required_string("question"),
        uri=_uri(fields),
        span=_span(fields),
        files=tuple(files),
        history=tuple(history),
        version=_version(fields),
        router=fields.choice("router", ROUTERS),
        model=fields.string("model"),
        options=dict(options.raw) if options is not None else None,
        work_done_token=fields.token("workDoneToken"),
        partial_result_token=fields.token("partialResultToken"),
    )


def parse_version(raw: Any, *, required: bool) -> VersionParams:
    """``{"version": "16.2.0"}``; commands may pass the version string itself."""
    value = plain(raw)
    if isinstance(value, str):
        value = {"version": value}
    fields = Fields(value)
    version = fields.required_string("version") if required else _version(fields)
    return VersionParams(
        version=version.strip() if version else None,
        uri=_uri(fields),
        work_done_token=fields.token("workDoneToken"),
    )


def parse_document(raw: Any) -> str | None:
    """Requests whose only (optional) parameter is ``textDocument``."""
    return _uri(Fields(plain(raw)))


def parse_diff(raw: Any) -> DiffParams:
    """``{"since": "16.2.0", "version": "16.4.6", "api": "cacheLife", "textDocument": ...}``
    (``version`` as for every request: the document's when left out)."""
    fields = Fields(plain(raw))
    return DiffParams(
        since=fields.required_string("since").strip(),
        until=_version(fields),
        api=fields.string("api"),
        uri=_uri(fields),
    )

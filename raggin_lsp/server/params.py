"""Parameters of the ``raggin/*`` requests and commands, as typed attrs classes (pure).

Written in lsprotocol's style: snake_case attributes that the lsprotocol converter pygls
uses reads from and writes to camelCase JSON (``top_k`` <-> ``topK``), so structuring a
request is ``converter.structure(params, SearchParams)``. Fields the classes do not name
are ignored (forward compatibility).

The converter is lenient with plain ``str`` and ``int`` (it turns ``3`` into ``"3"``); the
field types below are strict ones (:data:`Text`, :data:`TopK`, ...) whose hooks
(:func:`register_hooks`) raise :class:`ParamError` saying what was expected. A wrong field
is answered ``InvalidParams`` naming its path, e.g. ``params.history[0].answer: must be a
string, got number``.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NewType

import attrs
from cattrs import Converter
from lsprotocol import types

Token = int | str
ROUTERS = ("app", "pages")
MAX_TOP_K = 50

# Strict field types; each has a structure hook in register_hooks.
Text = NewType("Text", str)  # a string that is not blank
String = NewType("String", str)  # any string, "" included
Router = NewType("Router", str)  # one of ROUTERS
TopK = NewType("TopK", int)  # an integer from 1 to MAX_TOP_K
Options = NewType("Options", dict[str, Any])  # Ollama options: scalars or arrays by name


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

    @classmethod
    def of(cls, where: types.Range) -> "Span":
        return cls(
            Position(where.start.line, where.start.character),
            Position(where.end.line, where.end.character),
        )


def _token(_instance: Any, attribute: "attrs.Attribute[Any]", value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | str)):
        name = _camel(attribute.name)
        raise ParamError(f"{name} must be a string or an integer, got {json_kind(value)}")


def _forwards(_instance: Any, _attribute: "attrs.Attribute[Any]", value: Any) -> None:
    if value is not None and (value.end.line, value.end.character) < (
        value.start.line,
        value.start.character,
    ):
        raise ParamError("range.end must not come before range.start")


def _stripped(value: str) -> str:
    return value.strip()


def _optional_stripped(value: str | None) -> str | None:
    return None if value is None else value.strip()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@attrs.frozen
class InlineFile:
    """A file the client sends with its text (not on disk, or not saved)."""

    name: Text
    text: String


FileRef = str | InlineFile  # a URI, or a file with its text
DocumentRef = str | types.TextDocumentIdentifier


@attrs.frozen
class HistoryTurn:
    question: Text
    answer: String


@attrs.frozen
class DocumentParams:
    """``textDocument`` as ``{"uri": ...}`` (LSP style) or, in commands, the URI itself;
    it selects the version and the router."""

    text_document: DocumentRef | None = None

    @property
    def uri(self) -> str | None:
        document = self.text_document
        if isinstance(document, types.TextDocumentIdentifier):
            return document.uri
        return document or None


@attrs.frozen
class NoParams:
    """A request without parameters (any it is sent are ignored)."""


@attrs.frozen
class SearchParams(DocumentParams):
    query: Text = attrs.field(kw_only=True)
    code: Text | None = None
    version: Text | None = attrs.field(default=None, converter=_optional_stripped)
    router: Router | None = None
    top_k: TopK | None = None


@attrs.frozen
class AskParams(DocumentParams):
    question: Text = attrs.field(kw_only=True)
    range: types.Range | None = attrs.field(default=None, validator=_forwards)
    files: tuple[FileRef, ...] = ()
    history: tuple[HistoryTurn, ...] = ()
    version: Text | None = attrs.field(default=None, converter=_optional_stripped)
    router: Router | None = None
    model: Text | None = None
    options: Options | None = None
    work_done_token: Token | None = attrs.field(default=None, validator=_token)
    partial_result_token: Token | None = attrs.field(default=None, validator=_token)

    @property
    def span(self) -> Span | None:
        return Span.of(self.range) if self.range is not None else None


@attrs.frozen
class IndexParams(DocumentParams):
    """``raggin/index``: ``version`` defaults to the document's (or the workspace's)."""

    version: Text | None = attrs.field(default=None, converter=_optional_stripped)
    work_done_token: Token | None = attrs.field(default=None, validator=_token)


@attrs.frozen
class VersionParams:
    """``raggin/removeVersion`` and the ``raggin.selectVersion`` command: one release."""

    version: Text = attrs.field(converter=_stripped)


@attrs.frozen
class DiffParams(DocumentParams):
    """``{"since": "16.2.0", "version": "16.4.6", "api": "cacheLife", "textDocument": ...}``
    (``version`` as for every request: the document's when left out)."""

    since: Text = attrs.field(kw_only=True, converter=_stripped)
    version: Text | None = attrs.field(default=None, converter=_optional_stripped)
    api: Text | None = None


# -- strict hooks ------------------------------------------------------------------


def _text(value: Any, _type: Any) -> str:
    string = _string(value, _type)
    if not string.strip():
        raise ParamError("must not be empty")
    return string


def _string(value: Any, _type: Any) -> str:
    if not isinstance(value, str):
        raise ParamError(f"must be a string, got {json_kind(value)}")
    return value


def _router(value: Any, _type: Any) -> str:
    text = _text(value, _type)
    if text not in ROUTERS:
        raise ParamError(f"must be one of {', '.join(ROUTERS)}, got {text!r}")
    return text


def _top_k(value: Any, _type: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParamError(f"must be an integer, got {json_kind(value)}")
    if not 1 <= value <= MAX_TOP_K:
        raise ParamError(f"must be from 1 to {MAX_TOP_K}, got {value}")
    return value


def _options(value: Any, _type: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ParamError(f"must be an object, got {json_kind(value)}")
    for key, item in value.items():
        if not isinstance(item, bool | int | float | str | list):
            raise ParamError(f"{key} must be a number, string, boolean or array")
    return dict(value)


def _array(structure: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def hook(value: Any, type_: Any) -> Any:
        if not isinstance(value, list):
            raise ParamError(f"must be an array, got {json_kind(value)}")
        return structure(value, type_)

    return hook


def register_hooks(converter: Converter) -> None:
    """Teach ``converter`` (pygls's lsprotocol converter) the strict field types."""
    hooks: dict[Any, Callable[[Any, Any], Any]] = {
        Text: _text,
        String: _string,
        Router: _router,
        TopK: _top_k,
        Options: _options,
    }
    for type_, hook in hooks.items():
        converter.register_structure_hook(type_, hook)

    def file_ref(value: Any, _type: Any) -> FileRef:
        if isinstance(value, str):
            return _text(value, _type)
        if isinstance(value, Mapping):
            inline: InlineFile = converter.structure(value, InlineFile)
            return inline
        raise ParamError(f"must be a URI or {{name, text}}, got {json_kind(value)}")

    def document(value: Any, _type: Any) -> DocumentRef | None:
        if value is None or isinstance(value, str):
            return value
        if not isinstance(value, Mapping):
            raise ParamError(f"must be an object {{uri}}, got {json_kind(value)}")
        identifier: types.TextDocumentIdentifier = converter.structure(
            value, types.TextDocumentIdentifier
        )
        return identifier

    arrays = (tuple[FileRef, ...], tuple[HistoryTurn, ...])
    # cattrs makes a tuple of any iterable: a string would become its characters.
    item_hooks = {items: converter.get_structure_hook(items) for items in arrays}
    converter.register_structure_hook_func(
        lambda type_: type_ in item_hooks,
        lambda value, type_: _array(item_hooks[type_])(value, type_),
    )
    converter.register_structure_hook_func(lambda type_: type_ == FileRef, file_ref)
    converter.register_structure_hook_func(
        lambda type_: type_ in (DocumentRef, DocumentRef | None), document
    )

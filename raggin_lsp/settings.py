"""Typed settings merged from several sources, shared by the language server and the MCP
server (pure: no pygls, no mcp).

Precedence in the language server, highest first: the client's ``workspace/configuration``
section ``raggin``, ``initializationOptions``, ``.raggin.yaml`` at the workspace root, the
user's ``~/.config/raggin/config.yaml``, then the defaults below. The MCP server puts its
command-line options first, then the project's ``.raggin.yaml`` and the user's file.

Each source is validated key by key. An invalid value never reaches the pipeline: the
source keeps the last valid value it gave for that key (or gives none), and the problem
is returned so the server can tell the user, once.
"""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from raggin_lsp.embed.catalog import DEFAULT_PROFILE
from raggin_lsp.generate.model import DEFAULT_HOST, DEFAULT_MODEL, FIRST_TOKEN_TIMEOUT_S
from raggin_lsp.retrieve.stages import DEFAULT_RERANKER, DEFAULT_STAGES, Stages
from raggin_lsp.retrieve.strategies import DEFAULT_FUSION, STRATEGIES

SECTION = "raggin"
WORKSPACE_FILE = ".raggin.yaml"
FUSIONS = STRATEGIES
ROUTERS = ("auto", "app", "pages")
_VERSION = re.compile(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?")


@dataclass(frozen=True)
class Generation:
    """Sampling options passed to Ollama; None leaves the model's own default."""

    temperature: float | None = None
    num_ctx: int | None = None
    top_p: float | None = None
    num_predict: int | None = None

    def options(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if value is not None}


class Invalid(ValueError):
    """A value of the wrong type or out of range; the message says what was expected."""


@dataclass(frozen=True)
class Check:
    """How one setting's value is checked (``run`` returns it cleaned or raises
    :class:`Invalid`), what the docs say it accepts, and the JSON schema it implies
    (which the VS Code ``package.json`` contribution must agree with)."""

    run: Callable[[Any, Path | None], Any]
    accepts: str
    schema: Mapping[str, Any]

    def __call__(self, value: Any, base: Path | None) -> Any:
        return self.run(value, base)


def _text_value(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Invalid(f"expected a non-empty string, got {_shown(value)}")
    return value.strip()


def _optional(check: Check, accepts: str) -> Check:
    """``check``, or null (the setting's default: none)."""

    def run(value: Any, base: Path | None) -> Any:
        return None if value is None else check(value, base)

    return Check(run, accepts, {**check.schema, "type": [check.schema["type"], "null"]})


_text = Check(lambda value, _base: _text_value(value), "string", {"type": "string"})


def _resolved(value: Any, base: Path | None) -> Path:
    path = Path(_text_value(value)).expanduser()
    if not path.is_absolute() and base is not None:
        path = base / path
    return path


def _url_value(value: Any, _base: Path | None) -> str:
    text = _text_value(value)
    if not re.match(r"https?://[^/\s]+", text):
        raise Invalid(f"expected an http:// or https:// address, got {_shown(value)}")
    return text.rstrip("/")


_url = Check(_url_value, "`http(s)://` URL", {"type": "string"})
_path = _optional(Check(_resolved, "path", {"type": "string"}), "path")
_optional_text = _optional(_text, "string")
_optional_url = _optional(_url, "`http(s)://` URL")


def _version_value(value: Any, _base: Path | None) -> str:
    text = _text_value(value)
    if text in ("auto", "latest") or _VERSION.fullmatch(text):
        return text
    raise Invalid(f'expected "auto", "latest" or an exact release such as "16.2.0", got {text!r}')


_version = Check(
    _version_value,
    '`"auto"`, `"latest"` or a release such as `"16.2.0"`',
    {"type": "string", "pattern": f"^(auto|latest|{_VERSION.pattern})$"},
)


def _choice(*choices: str) -> Check:
    def run(value: Any, _base: Path | None) -> str:
        text = _text_value(value)
        if text not in choices:
            raise Invalid(f"expected one of {', '.join(choices)}, got {text!r}")
        return text

    accepts = ", ".join(f'`"{choice}"`' for choice in choices)
    return Check(run, accepts, {"type": "string", "enum": list(choices)})


def _integer(low: int, high: int) -> Check:
    def run(value: Any, _base: Path | None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise Invalid(f"expected an integer, got {_shown(value)}")
        if not low <= value <= high:
            raise Invalid(f"expected an integer from {low} to {high}, got {value}")
        return value

    schema = {"type": "integer", "minimum": low, "maximum": high}
    return Check(run, f"integer {low} to {high}", schema)


def _number(low: float, high: float) -> Check:
    def run(value: Any, _base: Path | None) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Invalid(f"expected a number, got {_shown(value)}")
        if not low <= value <= high:
            raise Invalid(f"expected a number from {low:g} to {high:g}, got {value}")
        return float(value)

    return Check(
        run, f"number {low:g} to {high:g}", {"type": "number", "minimum": low, "maximum": high}
    )


def _boolean_value(value: Any, _base: Path | None) -> bool:
    if not isinstance(value, bool):
        raise Invalid(f"expected true or false, got {_shown(value)}")
    return value


_boolean = Check(_boolean_value, "boolean", {"type": "boolean"})

_GENERATION: dict[str, Check] = {
    "temperature": _number(0.0, 2.0),
    "num_ctx": _integer(256, 1_048_576),
    "top_p": _number(0.0, 1.0),
    "num_predict": _integer(-2, 1_048_576),
}


def _generation_value(value: Any, base: Path | None) -> Generation:
    if not isinstance(value, Mapping):
        raise Invalid(f"expected an object with {', '.join(_GENERATION)}, got {_shown(value)}")
    unknown = sorted(set(value) - set(_GENERATION))
    if unknown:
        raise Invalid(f"unknown option {unknown[0]!r} (known: {', '.join(_GENERATION)})")
    checked: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:
            continue
        try:
            checked[key] = _GENERATION[key](item, base)
        except Invalid as error:
            raise Invalid(f"{key}: {error}") from None
    return Generation(**checked)


_generation = Check(
    _generation_value,
    "{" + ", ".join(f"`{key}` {check.accepts}" for key, check in _GENERATION.items()) + "}",
    {
        "type": "object",
        "additionalProperties": False,
        "properties": {key: check.schema for key, check in _GENERATION.items()},
    },
)


def stage_key(name: str) -> str:
    """``api_routing`` -> ``apiRouting``: the client's spelling of a stage."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def stages_to_json(stages: Stages) -> dict[str, bool]:
    return {stage_key(name): getattr(stages, name) for name in Stages.names()}


def _stages_value(value: Any, _base: Path | None) -> Stages:
    """``{"apiRouting": false}``: stages not named keep their defaults."""
    if not isinstance(value, Mapping):
        raise Invalid(f"expected an object of stage: true/false, got {_shown(value)}")
    names = {stage_key(name): name for name in Stages.names()}
    stages = DEFAULT_STAGES
    for key, on in value.items():
        name = names.get(key, key if key in Stages.names() else None)
        if name is None:
            raise Invalid(f"unknown stage {key!r} (known: {', '.join(names)})")
        if not isinstance(on, bool):
            raise Invalid(f"{key}: expected true or false, got {_shown(on)}")
        stages = stages.with_stage(name, on)
    return stages


_stages = Check(
    _stages_value,
    "{" + ", ".join(f"`{stage_key(name)}`" for name in Stages.names()) + "}: booleans",
    {
        "type": "object",
        "additionalProperties": False,
        "properties": {stage_key(name): {"type": "boolean"} for name in Stages.names()},
    },
)


def _same(value: Any) -> Any:
    return value


def _path_text(value: Path | None) -> str | None:
    return str(value) if value else None


_DECLARATION = "raggin.setting"


@dataclass(frozen=True)
class Setting:
    """One setting, declared once as a :class:`Settings` field (see :func:`_setting`): its
    client spelling, how a value is checked, what it means, and how it is shown
    (``secret`` ones are masked). Its type and default are the field's.

    :data:`FIELDS`, :meth:`Settings.to_json`, the YAML snake_case aliases, the settings
    table of docs/protocol.md (:func:`docs_table`) and ``AssistantConfig`` derive from
    :data:`SETTINGS`; tests hold the VS Code ``package.json`` contribution to it.
    """

    key: str
    check: Check
    description: str
    to_json: Callable[[Any], Any] = _same
    secret: bool = False
    shown_default: str | None = None  # the docs' default when the value says too little
    server_only: bool = False  # the pipeline never reads it: changing it reloads nothing
    field_name: str = ""  # the Settings field that declares it

    def shown(self, value: Any) -> Any:
        if self.secret:
            return "***" if value else None
        return self.to_json(value)

    @property
    def default(self) -> Any:
        return Settings.__dataclass_fields__[self.field_name].default


def _setting(
    key: str,
    default: Any,
    check: Check,
    description: str,
    *,
    to_json: Callable[[Any], Any] = _same,
    secret: bool = False,
    shown_default: str | None = None,
    server_only: bool = False,
) -> Any:
    """A :class:`Settings` field carrying its :class:`Setting` declaration."""
    declared = Setting(key, check, description, to_json, secret, shown_default, server_only)
    return field(default=default, metadata={_DECLARATION: declared})


@dataclass(frozen=True)
class Settings:
    """The effective settings; each field is one setting's whole declaration."""

    next_version: str = _setting(
        "nextVersion",
        "auto",
        _version,
        "docs version; `auto` detects it per document",
        server_only=True,
    )
    router: str = _setting(
        "router", "auto", _choice(*ROUTERS), "restrict results to one router", server_only=True
    )
    profile: str = _setting(
        "profile", DEFAULT_PROFILE, _text, "embedding profile (`light` is the small offline one)"
    )
    model_path: Path | None = _setting(
        "modelPath", None, _path, "folder of a local embedding model", to_json=_path_text
    )
    qdrant_path: Path | None = _setting(
        "qdrantPath",
        None,
        _path,
        "folder of the embedded index",
        to_json=_path_text,
        shown_default="the raggin data folder",
    )
    qdrant_url: str | None = _setting(
        "qdrantUrl", None, _optional_url, "a Qdrant server or cluster instead of the embedded index"
    )
    qdrant_api_key: str | None = _setting(
        "qdrantApiKey", None, _optional_text, "API key for `qdrantUrl`", secret=True
    )
    ollama_host: str = _setting("ollamaHost", DEFAULT_HOST, _url, "Ollama server")
    model: str = _setting("model", DEFAULT_MODEL, _text, "Ollama model for answers")
    generation: Generation = _setting(
        "generation",
        Generation(),
        _generation,
        "sampling options",
        to_json=Generation.options,
        shown_default="model defaults",
    )
    top_k: int = _setting("topK", 5, _integer(1, 50), "sections per search")
    fusion: str = _setting(
        "fusion", DEFAULT_FUSION, _choice(*FUSIONS), "how dense and sparse results are combined"
    )
    stages: Stages = _setting(
        "retrievalStages",
        DEFAULT_STAGES,
        _stages,
        "retrieval stages on top of hybrid search (see `raggin-lsp eval --ablation`); `rerank`"
        " re-orders the best candidates with a cross-encoder, `hyde` also searches the docs"
        " passage the Ollama model imagines answering (skipped, without waiting, while Ollama"
        " or the model is missing)",
        to_json=stages_to_json,
        shown_default="all `true` but "
        + ", ".join(
            f"`{stage_key(name)}`" for name in Stages.names() if not getattr(DEFAULT_STAGES, name)
        ),
    )
    reranker_model: str = _setting(
        "rerankerModel",
        DEFAULT_RERANKER,
        _text,
        "cross-encoder of the `rerank` stage: a fastembed cross-encoder (downloaded on first"
        " use) or the absolute path of a folder holding one",
    )
    history_turns: int = _setting(
        "historyTurns", 3, _integer(0, 20), "earlier turns replayed to the model"
    )
    first_token_timeout: float = _setting(
        "firstTokenTimeout",
        FIRST_TOKEN_TIMEOUT_S,
        _number(1, 600),
        "seconds Ollama may take to its first token before the answer quotes the docs instead",
    )
    auto_index: bool = _setting("autoIndex", True, _boolean, "index a missing version on first use")
    diagnostics: bool = _setting(
        "diagnostics",
        True,
        _boolean,
        "deprecated, renamed or removed Next.js APIs as diagnostics (see below)",
        server_only=True,
    )

    def to_json(self) -> dict[str, Any]:
        """The effective settings in the client's spelling (secrets are masked)."""
        return {
            setting.key: setting.shown(getattr(self, setting.field_name)) for setting in SETTINGS
        }


SETTINGS: tuple[Setting, ...] = tuple(
    replace(item.metadata[_DECLARATION], field_name=item.name) for item in fields(Settings)
)


# Client spelling -> (Settings field, check).
FIELDS: dict[str, tuple[str, Check]] = {
    setting.key: (setting.field_name, setting.check) for setting in SETTINGS
}
# YAML files may use snake_case as well.
_ALIASES = {field_name: key for key, (field_name, _) in FIELDS.items()}


def _shown(value: Any) -> str:
    kind = {bool: "boolean", int: "integer", float: "number", str: "string", list: "list"}
    name = "null" if value is None else kind.get(type(value), type(value).__name__)
    if isinstance(value, Mapping):
        name = "object"
    return f"{name} {value!r}" if isinstance(value, str | int | float) else name


def validate(raw: Any, source: str, base: Path | None = None) -> tuple[dict[str, Any], list[str]]:
    """Check one source: (Settings field -> valid value, problems written for the user).

    ``raw`` may hold the keys at its top level or under ``raggin``; relative paths are
    taken from ``base`` (the folder of the file, or the workspace root).
    """
    if raw is None:
        return {}, []
    if not isinstance(raw, Mapping):
        return {}, [f"{source}: expected an object of raggin settings, got {_shown(raw)}"]
    if set(raw) == {SECTION} and isinstance(raw[SECTION], Mapping):
        raw = raw[SECTION]
    values: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in raw.items():
        name = _ALIASES.get(key, key)
        if name not in FIELDS:
            problems.append(f"{source}: unknown setting {key!r} (known: {', '.join(FIELDS)})")
            continue
        field_name, check = FIELDS[name]
        try:
            values[field_name] = check(value, base)
        except Invalid as error:
            problems.append(f"{source}: {name}: {error}; keeping the previous value")
    return values, problems


def read_yaml(path: Path) -> tuple[Any, list[str]]:
    """A settings file's contents, or None when there is none; a broken file is a problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, []
    except OSError as error:
        return None, [f"{path}: cannot be read ({error.strerror})"]
    # Only a file that exists pays for the YAML parser (the language server reads these
    # files before answering `initialize`).
    import yaml

    try:
        return yaml.safe_load(text), []
    except yaml.YAMLError as error:
        return None, [f"{path}: not valid YAML ({error})"]


@dataclass
class SettingsStore:
    """The layers, highest precedence first, each remembering its last valid values."""

    order: Sequence[str] = ("client", "initializationOptions", "workspace", "user")
    layers: dict[str, dict[str, Any]] = field(default_factory=dict)
    reported: set[str] = field(default_factory=set)

    def update(
        self, layer: str, raw: Any, *, source: str | None = None, base: Path | None = None
    ) -> list[str]:
        """Replace one layer; returns the problems not reported before.

        Keys that are invalid now keep the value this layer had for them before.
        """
        if layer not in self.order:
            raise ValueError(f"unknown settings layer {layer!r}")
        values, problems = validate(raw, source or layer, base)
        previous = self.layers.get(layer, {})
        for field_name in _named_fields(raw):
            # Present but rejected: this layer goes on giving its previous value.
            if field_name in previous and field_name not in values:
                values[field_name] = previous[field_name]
        self.layers[layer] = values
        fresh = [problem for problem in problems if problem not in self.reported]
        self.reported.update(fresh)
        return fresh

    def update_file(self, layer: str, path: Path) -> list[str]:
        raw, problems = read_yaml(path)
        problems = [problem for problem in problems if problem not in self.reported]
        self.reported.update(problems)
        if problems:  # an unreadable file keeps what it gave before
            return problems
        return self.update(layer, raw, source=str(path), base=path.parent)

    def given(self, field_name: str) -> bool:
        """Whether some layer sets ``field_name`` (rather than leaving its default)."""
        return any(field_name in values for values in self.layers.values())

    def effective(self) -> Settings:
        merged: dict[str, Any] = {}
        for layer in reversed(self.order):
            merged.update(self.layers.get(layer, {}))
        return replace(Settings(), **merged)


def _named_fields(raw: Any) -> list[str]:
    if not isinstance(raw, Mapping):
        return []
    if set(raw) == {SECTION} and isinstance(raw[SECTION], Mapping):
        raw = raw[SECTION]
    fields = []
    for key in raw:
        name = _ALIASES.get(key, key)
        if name in FIELDS:
            fields.append(FIELDS[name][0])
    return fields

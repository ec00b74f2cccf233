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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from raggin_lsp.retrieve.stages import DEFAULT_RERANKER, DEFAULT_STAGES, Stages
from raggin_lsp.retrieve.strategies import DEFAULT_FUSION, STRATEGIES

if TYPE_CHECKING:
    from raggin_lsp.assistant import AssistantConfig

SECTION = "raggin"
WORKSPACE_FILE = ".raggin.yaml"
FUSIONS = STRATEGIES
ROUTERS = ("auto", "app", "pages")
DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
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


@dataclass(frozen=True)
class Settings:
    next_version: str = "auto"  # "auto" (detect per document), "latest", or "16.2.0"
    router: str = "auto"
    profile: str = "bge-m3"
    model_path: Path | None = None
    qdrant_path: Path | None = None
    qdrant_url: str | None = None
    qdrant_api_key: str | None = None
    ollama_host: str = DEFAULT_OLLAMA_HOST
    model: str = "qwen2.5-coder:7b"
    generation: Generation = field(default_factory=Generation)
    top_k: int = 5
    fusion: str = DEFAULT_FUSION
    stages: Stages = DEFAULT_STAGES
    reranker_model: str = DEFAULT_RERANKER
    history_turns: int = 3
    auto_index: bool = True
    diagnostics: bool = True

    def assistant_config(self) -> "AssistantConfig":
        """What the pipeline needs (imported here so ``initialize`` stays fast)."""
        from raggin_lsp.assistant import AssistantConfig

        return AssistantConfig(
            profile=self.profile,
            model_path=self.model_path,
            qdrant_path=self.qdrant_path,
            qdrant_url=self.qdrant_url,
            qdrant_api_key=self.qdrant_api_key,
            ollama_host=self.ollama_host,
            model=self.model,
            generation=self.generation.options(),
            top_k=self.top_k,
            fusion=self.fusion,
            stages=self.stages,
            reranker=self.reranker_model,
            history_turns=self.history_turns,
            auto_index=self.auto_index,
        )

    def to_json(self) -> dict[str, Any]:
        """The effective settings in the client's spelling (secrets are masked)."""
        return {
            setting.key: setting.shown(getattr(self, setting.field_name)) for setting in SETTINGS
        }


class Invalid(ValueError):
    """A value of the wrong type or out of range; the message says what was expected."""


Check = Callable[[Any, Path | None], Any]


def _text(value: Any, _base: Path | None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Invalid(f"expected a non-empty string, got {_shown(value)}")
    return value.strip()


def _optional_text(value: Any, base: Path | None) -> str | None:
    return None if value is None else _text(value, base)


def _path(value: Any, base: Path | None) -> Path | None:
    if value is None:
        return None
    path = Path(_text(value, base)).expanduser()
    if not path.is_absolute() and base is not None:
        path = base / path
    return path


def _url(value: Any, base: Path | None) -> str:
    text = _text(value, base)
    if not re.match(r"https?://[^/\s]+", text):
        raise Invalid(f"expected an http:// or https:// address, got {_shown(value)}")
    return text.rstrip("/")


def _optional_url(value: Any, base: Path | None) -> str | None:
    return None if value is None else _url(value, base)


def _version(value: Any, base: Path | None) -> str:
    text = _text(value, base)
    if text in ("auto", "latest") or _VERSION.fullmatch(text):
        return text
    raise Invalid(f'expected "auto", "latest" or an exact release such as "16.2.0", got {text!r}')


def _choice(*choices: str) -> Check:
    def check(value: Any, base: Path | None) -> str:
        text = _text(value, base)
        if text not in choices:
            raise Invalid(f"expected one of {', '.join(choices)}, got {text!r}")
        return text

    return check


def _integer(low: int, high: int) -> Check:
    def check(value: Any, _base: Path | None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise Invalid(f"expected an integer, got {_shown(value)}")
        if not low <= value <= high:
            raise Invalid(f"expected an integer from {low} to {high}, got {value}")
        return value

    return check


def _number(low: float, high: float) -> Check:
    def check(value: Any, _base: Path | None) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Invalid(f"expected a number, got {_shown(value)}")
        if not low <= value <= high:
            raise Invalid(f"expected a number from {low:g} to {high:g}, got {value}")
        return float(value)

    return check


def _boolean(value: Any, _base: Path | None) -> bool:
    if not isinstance(value, bool):
        raise Invalid(f"expected true or false, got {_shown(value)}")
    return value


_GENERATION: dict[str, Check] = {
    "temperature": _number(0.0, 2.0),
    "num_ctx": _integer(256, 1_048_576),
    "top_p": _number(0.0, 1.0),
    "num_predict": _integer(-2, 1_048_576),
}


def _generation(value: Any, base: Path | None) -> Generation:
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


def stage_key(name: str) -> str:
    """``api_routing`` -> ``apiRouting``: the client's spelling of a stage."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def stages_to_json(stages: Stages) -> dict[str, bool]:
    return {stage_key(name): getattr(stages, name) for name in Stages.names()}


def _stages(value: Any, _base: Path | None) -> Stages:
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


def _same(value: Any) -> Any:
    return value


def _path_text(value: Path | None) -> str | None:
    return str(value) if value else None


@dataclass(frozen=True)
class Setting:
    """One setting, declared once: its client spelling, its :class:`Settings` field, how a
    value is checked and how it is shown (``secret`` ones are masked).

    :data:`FIELDS`, :meth:`Settings.to_json` and the YAML snake_case aliases derive from
    :data:`SETTINGS`; tests hold the VS Code ``package.json`` contribution and its
    ``SERVER_KEYS`` to it.
    """

    key: str
    field_name: str
    check: Check
    to_json: Callable[[Any], Any] = _same
    secret: bool = False

    def shown(self, value: Any) -> Any:
        if self.secret:
            return "***" if value else None
        return self.to_json(value)


SETTINGS: tuple[Setting, ...] = (
    Setting("nextVersion", "next_version", _version),
    Setting("router", "router", _choice(*ROUTERS)),
    Setting("profile", "profile", _text),
    Setting("modelPath", "model_path", _path, _path_text),
    Setting("qdrantPath", "qdrant_path", _path, _path_text),
    Setting("qdrantUrl", "qdrant_url", _optional_url),
    Setting("qdrantApiKey", "qdrant_api_key", _optional_text, secret=True),
    Setting("ollamaHost", "ollama_host", _url),
    Setting("model", "model", _text),
    Setting("generation", "generation", _generation, Generation.options),
    Setting("topK", "top_k", _integer(1, 50)),
    Setting("fusion", "fusion", _choice(*FUSIONS)),
    Setting("retrievalStages", "stages", _stages, stages_to_json),
    Setting("rerankerModel", "reranker_model", _text),
    Setting("historyTurns", "history_turns", _integer(0, 20)),
    Setting("autoIndex", "auto_index", _boolean),
    Setting("diagnostics", "diagnostics", _boolean),
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

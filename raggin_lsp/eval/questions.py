"""Load and validate a retrieval-quality question set (``raggin_lsp/eval/data/questions.yaml``).

The schema is documented in ``raggin_lsp/eval/data/README.md``. Unknown keys are ignored so a
question set can carry notes for humans, and other sets in the same schema load too.
"""

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast, get_args

import yaml

from raggin_lsp.errors import RagginError
from raggin_lsp.eval.metrics import page_of

Router = Literal["app", "pages"]
Kind = Literal["api", "how-to", "concept", "config", "error", "complex"]
ROUTERS: tuple[str, ...] = get_args(Router)
KINDS: tuple[str, ...] = get_args(Kind)

# The sets shipped as package data (so `raggin-lsp eval` works from an installed wheel):
# short, clean questions, and long, noisy ones written the way developers post in issues.
EVAL_DIR = Path(__file__).resolve().parent / "data"
DEFAULT_QUESTIONS_PATH = EVAL_DIR / "questions.yaml"
NOISY_QUESTIONS_PATH = EVAL_DIR / "questions-noisy.yaml"
DEFAULT_QUESTION_PATHS = (DEFAULT_QUESTIONS_PATH, NOISY_QUESTIONS_PATH)

# Every default and weight is chosen on "tune"; quality is reported on "test".
Split = Literal["tune", "test"]
SPLITS: tuple[str, ...] = get_args(Split)

_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
_CONSTRAINT = re.compile(r"^(>=|<=|==|>|<)?\s*(\d+\.\d+\.\d+)$")


class QuestionSetError(RagginError):
    """A question file is missing, unreadable or breaks the schema."""


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@dataclass(frozen=True)
class VersionRange:
    """A comma-separated list of ``>=16.4.0``-style bounds; a bare version means ``==``."""

    bounds: tuple[tuple[str, tuple[int, ...]], ...]
    text: str

    @classmethod
    def parse(cls, text: str) -> "VersionRange":
        bounds: list[tuple[str, tuple[int, ...]]] = []
        for part in text.split(","):
            match = _CONSTRAINT.match(part.strip())
            if match is None:
                raise ValueError(
                    f"'{text}' is not a version range; use e.g. '>=16.4.0' or '>=16.2.0,<16.4.0'"
                )
            bounds.append((match.group(1) or "==", version_key(match.group(2))))
        return cls(bounds=tuple(bounds), text=text)

    def contains(self, version: str) -> bool:
        key = version_key(version)
        checks = {
            ">=": lambda bound: key >= bound,
            "<=": lambda bound: key <= bound,
            ">": lambda bound: key > bound,
            "<": lambda bound: key < bound,
            "==": lambda bound: key == bound,
        }
        return all(checks[op](bound) for op, bound in self.bounds)


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    gold: tuple[str, ...]  # url paths, optionally with #anchor; the answer for the latest docs
    router: Router
    kind: Kind
    version: VersionRange | None = None  # the question only makes sense for these versions
    # Answers that differ by version: key = first docs version the answer holds for.
    gold_by_version: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    style: str = "clean"  # "noisy": long, with logs, typos and old names

    @property
    def split(self) -> Split:
        """Fixed by the id alone, so adding questions never moves existing ones."""
        return split_of(self.id)

    def applies_to(self, version: str) -> bool:
        return self.version is None or self.version.contains(version)

    def gold_for(self, version: str | None = None) -> tuple[str, ...]:
        """The gold url paths for ``version``: its own entry, else the newest entry not
        newer than it, else ``gold``."""
        if version is None or not self.gold_by_version:
            return self.gold
        if version in self.gold_by_version:
            return self.gold_by_version[version]
        older = [v for v in self.gold_by_version if version_key(v) <= version_key(version)]
        if older:
            return self.gold_by_version[max(older, key=version_key)]
        return self.gold

    def gold_pages(self, version: str | None = None) -> tuple[str, ...]:
        return tuple(dict.fromkeys(page_of(path) for path in self.gold_for(version)))

    @property
    def version_sensitive(self) -> bool:
        return len({self.gold_pages(v) for v in self.gold_by_version}) > 1


def split_of(question_id: str) -> Split:
    """Half the questions (by a hash of the id) tune the retrieval; the others test it."""
    digest = hashlib.sha256(question_id.encode("utf-8")).digest()
    return "tune" if digest[0] % 2 == 0 else "test"


def load_question_sets(
    paths: Iterable[Path | str] = DEFAULT_QUESTION_PATHS, split: str = "all"
) -> list[Question]:
    """Every question of several files (ids unique across them), of one split or ``all``."""
    if split not in (*SPLITS, "all"):
        raise QuestionSetError(f"Unknown split {split!r}; use tune, test or all.")
    questions: list[Question] = []
    seen: dict[str, Path] = {}
    for path in paths:
        for question in load_questions(path):
            if question.id in seen:
                raise QuestionSetError(
                    f"Question id '{question.id}' is in both {seen[question.id]} and {path}"
                )
            seen[question.id] = Path(path)
            questions.append(question)
    return [q for q in questions if split == "all" or q.split == split]


def load_questions(path: Path | str = DEFAULT_QUESTIONS_PATH) -> list[Question]:
    """Read and validate a question file; raises :class:`QuestionSetError` with every problem."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise QuestionSetError(f"Question file not found: {path}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionSetError(f"Cannot read question file {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise QuestionSetError(f"Question file {path} is not valid YAML: {exc}") from exc
    return parse_questions(data, source=str(path))


def parse_questions(data: object, source: str = "<questions>") -> list[Question]:
    """Validate parsed YAML: a list of questions or a mapping with a ``questions`` list."""
    if isinstance(data, Mapping):
        data = data.get("questions")
    if not isinstance(data, list) or not data:
        raise QuestionSetError(f"{source}: expected a non-empty list of questions")
    problems: list[str] = []
    questions: list[Question] = []
    seen: set[str] = set()
    for index, entry in enumerate(data):
        label = f"{source}: question #{index + 1}"
        if not isinstance(entry, Mapping):
            problems.append(f"{label} is not a mapping")
            continue
        if isinstance(entry.get("id"), str) and entry["id"]:
            label = f"{source}: question '{entry['id']}'"
        entry_problems = _check_entry(entry)
        problems.extend(f"{label}: {problem}" for problem in entry_problems)
        if entry_problems:
            continue
        question = _build(entry)
        if question.id in seen:
            problems.append(f"{label}: duplicate id")
            continue
        seen.add(question.id)
        questions.append(question)
    if problems:
        raise QuestionSetError("Invalid question set:\n" + "\n".join(problems))
    return questions


def _gold_problems(value: object, name: str) -> list[str]:
    if not isinstance(value, list) or not value:
        return [f"'{name}' must be a non-empty list of url paths"]
    return [
        f"'{name}' entry {item!r} is not a url path starting with /docs"
        for item in value
        if not isinstance(item, str) or not (item == "/docs" or item.startswith("/docs/"))
    ]


def _check_entry(entry: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    if not isinstance(entry.get("id"), str) or not entry["id"].strip():
        problems.append("'id' must be a non-empty string")
    if not isinstance(entry.get("question"), str) or not entry["question"].strip():
        problems.append("'question' must be a non-empty string")
    problems.extend(_gold_problems(entry.get("gold"), "gold"))
    if entry.get("router") not in ROUTERS:
        problems.append(f"'router' must be one of {', '.join(ROUTERS)}")
    if entry.get("kind") not in KINDS:
        problems.append(f"'kind' must be one of {', '.join(KINDS)}")
    version = entry.get("version")
    if version is not None:
        try:
            VersionRange.parse(str(version))
        except ValueError as exc:
            problems.append(f"'version': {exc}")
    by_version = entry.get("gold_by_version")
    if by_version is not None:
        if not isinstance(by_version, Mapping) or not by_version:
            problems.append("'gold_by_version' must map versions like '16.2.0' to url path lists")
        else:
            for key, value in by_version.items():
                if not _VERSION.match(str(key)):
                    problems.append(f"'gold_by_version' key {key!r} is not a version like 16.2.0")
                problems.extend(_gold_problems(value, f"gold_by_version.{key}"))
    return problems


def _build(entry: Mapping[str, Any]) -> Question:
    version = entry.get("version")
    by_version = entry.get("gold_by_version") or {}
    return Question(
        id=str(entry["id"]).strip(),
        question=str(entry["question"]).strip(),
        gold=tuple(entry["gold"]),
        router=cast(Router, entry["router"]),
        kind=cast(Kind, entry["kind"]),
        version=VersionRange.parse(str(version)) if version is not None else None,
        gold_by_version={str(key): tuple(value) for key, value in by_version.items()},
        style=str(entry.get("style", "clean")),
    )


def title_in_question(question: str, title: str) -> bool:
    """Whether ``title`` appears in ``question`` as a whole phrase, ignoring case.

    Whole-phrase matching keeps one-word titles such as ``io`` or ``after`` from matching
    inside other words (``action``, ``afterwards``)."""
    if not title.strip():
        return False
    pattern = r"(?<!\w)" + re.escape(title.strip()) + r"(?!\w)"
    return re.search(pattern, question, flags=re.IGNORECASE) is not None


def check_against_docs(
    questions: Iterable[Question], titles_by_version: Mapping[str, Mapping[str, str]]
) -> list[str]:
    """Problems of a question set against real docs: ``{version: {url_path: title}}``.

    For every docs version a question applies to, each gold page of that version must
    exist there, and the question must not quote any of its gold pages' titles."""
    problems: list[str] = []
    for question in questions:
        for version, titles in titles_by_version.items():
            if not question.applies_to(version):
                continue
            for page in question.gold_pages(version):
                if page not in titles:
                    problems.append(f"{question.id}: gold page {page} is not in the {version} docs")
                elif title_in_question(question.question, titles[page]):
                    problems.append(
                        f"{question.id}: question quotes the title {titles[page]!r} of {page}"
                    )
    return list(dict.fromkeys(problems))  # a title quoted in two versions is one problem


def select(
    questions: Sequence[Question], version: str | None = None, kinds: Iterable[str] | None = None
) -> list[Question]:
    """The questions that apply to ``version`` (all when None), optionally of some kinds."""
    wanted = set(kinds) if kinds is not None else None
    return [
        q
        for q in questions
        if (version is None or q.applies_to(version)) and (wanted is None or q.kind in wanted)
    ]

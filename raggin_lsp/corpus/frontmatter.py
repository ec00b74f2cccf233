"""The YAML frontmatter of a docs page (``title``, ``nav_title``, ``description``,
``related``, ``source``, ``version``) and the page body after it."""

import re
from dataclasses import dataclass
from typing import Any

import yaml

# The C loader (when PyYAML was built with libyaml) is about ten times faster.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FRONTMATTER = re.compile(
    r"\A\ufeff?---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|\Z)", re.S | re.M
)


@dataclass(frozen=True)
class Frontmatter:
    title: str | None = None
    nav_title: str | None = None
    description: str = ""
    related: tuple[
        str, ...
    ] = ()  # site paths as written, e.g. "app/api-reference/components/image"
    source: str | None = None
    stage: str | None = None  # frontmatter `version:` such as "experimental" or "legacy"
    error: str | None = None  # why the YAML could not be read, if it could not


def split_frontmatter(text: str) -> tuple[Frontmatter, str]:
    """Frontmatter and body; a page with broken YAML keeps its body and gets a note."""
    match = _FRONTMATTER.match(text)
    if match is None:
        return Frontmatter(), text.lstrip("\ufeff")
    body = text[match.end() :]
    try:
        data = yaml.load(match.group(1), Loader=_LOADER)
    except yaml.YAMLError as error:
        return Frontmatter(error=f"frontmatter is not valid YAML: {error}"), body
    if not isinstance(data, dict):
        return Frontmatter(), body
    return _from_mapping(data), body


def _from_mapping(data: dict[Any, Any]) -> Frontmatter:
    related = data.get("related")
    links: list[Any] = []
    if isinstance(related, dict) and isinstance(related.get("links"), list):
        links = related["links"]
    elif isinstance(related, list):
        links = related
    return Frontmatter(
        title=_text(data.get("title")),
        nav_title=_text(data.get("nav_title")),
        description=_text(data.get("description")) or "",
        related=tuple(
            str(link).strip() for link in links if isinstance(link, str | int) and str(link).strip()
        ),
        source=_text(data.get("source")),
        stage=_text(data.get("version")),
    )


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    text = str(value).strip()
    return text or None

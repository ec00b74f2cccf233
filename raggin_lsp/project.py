"""Which Next.js project, version and router a file belongs to (pure: files only; the
language server and the CLI both use it).

The project is the nearest folder upwards holding a ``package.json`` that depends on
``next`` (a package of a monorepo without ``next`` is skipped, so its app is found).
The version is the installed one (``node_modules/next/package.json``, searched upwards
like Node does, so hoisted installs count), else the declared range resolved to the
newest release that matches it. The router comes from the ``app/`` and ``pages/``
folders (``src/`` variants too); when both exist, the document's own path decides.
"""

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Router = Literal["app", "pages"]
VersionSource = Literal["installed", "declared", "unresolved"]
_DEPENDENCY_FIELDS = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
_ROUTER_FOLDERS: tuple[tuple[str, Router], ...] = (
    ("app", "app"),
    ("src/app", "app"),
    ("pages", "pages"),
    ("src/pages", "pages"),
)


@dataclass(frozen=True)
class Project:
    root: Path
    declared: str | None  # the range in package.json, e.g. "^16.2.0"
    installed: str | None  # the exact installed version
    version: str | None  # installed, else the newest release matching ``declared``
    version_source: VersionSource
    router_folders: tuple[tuple[Path, Router], ...]
    problem: str | None = None  # why ``version`` is None, fit for the user

    def router_for(self, document: Path) -> Router | None:
        """The router a document is written for: its own folder first, then the project's."""
        for folder, router in self.router_folders:
            if _is_within(document, folder):
                return router
        routers = {router for _, router in self.router_folders}
        return routers.pop() if len(routers) == 1 else None

    def to_json(self) -> dict[str, Any]:
        return {
            "root": str(self.root),
            "declared": self.declared,
            "installed": self.installed,
            "version": self.version,
            "versionSource": self.version_source,
            "routers": sorted({router for _, router in self.router_folders}),
            "problem": self.problem,
        }


RangeResolver = Callable[[str], str | None]


def _is_within(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def declared_range(package: dict[str, Any]) -> str | None:
    for field_name in _DEPENDENCY_FIELDS:
        dependencies = package.get(field_name)
        if isinstance(dependencies, dict) and isinstance(dependencies.get("next"), str):
            return str(dependencies["next"])
    return None


def installed_version(start: Path) -> str | None:
    """The version of ``next`` Node would load from ``start`` (searching upwards)."""
    for folder in (start, *start.parents):
        manifest = _read_json(folder / "node_modules" / "next" / "package.json")
        if manifest is not None and isinstance(manifest.get("version"), str):
            return str(manifest["version"])
    return None


def find_project(document: Path, resolve_range: RangeResolver | None = None) -> Project | None:
    """The Next.js project holding ``document`` (a file or folder path), or None."""
    start = document if document.is_dir() else document.parent
    for folder in (start, *start.parents):
        package = _read_json(folder / "package.json")
        if package is None:
            continue
        declared = declared_range(package)
        installed = installed_version(folder)
        if declared is None and not (folder / "node_modules" / "next").is_dir():
            continue
        return _project(folder, declared, installed, resolve_range)
    return None


def _project(
    root: Path, declared: str | None, installed: str | None, resolve_range: RangeResolver | None
) -> Project:
    folders = tuple(
        (root / relative, router)
        for relative, router in _ROUTER_FOLDERS
        if (root / relative).is_dir()
    )
    if installed is not None:
        return Project(root, declared, installed, installed, "installed", folders)
    problem: str | None = None
    version: str | None = None
    if declared is not None and resolve_range is not None:
        try:
            version = resolve_range(declared)
        except Exception as error:  # the resolver's message is written for the user
            problem = f'cannot resolve next "{declared}" from {root / "package.json"}: {error}'
        else:
            if version is None:
                problem = f'no Next.js release matches "{declared}" ({root / "package.json"})'
    elif declared is None:
        problem = f"{root / 'package.json'} does not declare next"
    source: VersionSource = "declared" if version is not None else "unresolved"
    return Project(root, declared, None, version, source, folders, problem)


class ProjectCache:
    """``find_project`` remembered per folder until a manifest it read changes."""

    def __init__(self, resolve_range: RangeResolver | None = None) -> None:
        self._resolve_range = resolve_range
        self._cache: dict[Path, tuple[tuple[int, ...], Project | None]] = {}

    def find(self, document: Path) -> Project | None:
        folder = document if document.is_dir() else document.parent
        stamp = self._stamp(folder)
        cached = self._cache.get(folder)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        project = find_project(document, self._resolve_range)
        self._cache[folder] = (stamp, project)
        return project

    @staticmethod
    def _stamp(folder: Path) -> tuple[int, ...]:
        stamps: list[int] = []
        for parent in (folder, *folder.parents):
            for manifest in (
                parent / "package.json",
                parent / "node_modules" / "next" / "package.json",
            ):
                try:
                    stamps.append(manifest.stat().st_mtime_ns)
                except OSError:
                    stamps.append(0)
        return tuple(stamps)


@dataclass(frozen=True)
class Choice:
    version: str
    reason: str  # for logs and raggin/versions: "request", "setting", "project", ...


def choose_version(
    *,
    requested: str | None,
    configured: str,
    project: Project | None,
    indexed: Sequence[str],
    latest: str | None,
) -> Choice | None:
    """The docs version for a request, in order: the request's own ``version``, the
    ``nextVersion`` setting when it is not ``auto``, the project's version, the newest
    indexed version, the newest release. None when nothing is known at all.

    ``latest`` is the newest release in the catalog (``nextVersion: latest`` uses it).
    """
    if requested:
        return Choice(latest if requested == "latest" and latest else requested, "request")
    if configured == "latest" and latest:
        return Choice(latest, "setting")
    if configured not in ("auto", "latest"):
        return Choice(configured, "setting")
    if project is not None and project.version is not None:
        return Choice(project.version, f"project ({project.version_source})")
    if indexed:
        return Choice(_newest(indexed), "newest indexed")
    if latest:
        return Choice(latest, "newest release")
    return None


@dataclass(frozen=True)
class Target:
    """The docs a request made from a folder is about (outside an editor: the CLI's
    ``search``, the MCP tools). ``version`` is None when nothing is known at all."""

    version: str | None
    router: str | None
    reason: str  # why this version, e.g. "project (installed)", "request", "newest indexed"
    project: Project | None

    def describe(self) -> str:
        """``project (installed), app router``: the reason, then the router if any."""
        return self.reason + (f", {self.router} router" if self.router else "")


def folder_target(
    folder: Path,
    *,
    version: str | None,
    router: str | None,
    indexed: Sequence[str],
    resolve_range: RangeResolver | None = None,
    configured_version: str = "auto",
    configured_router: str = "auto",
    latest: str | None = None,
) -> Target:
    """Version and router as the editor would choose them for a file in ``folder``: the
    request's own, then the configured ones unless ``auto``, then the project holding
    ``folder``; outside a project the newest indexed version (see :func:`choose_version`)
    and no router, so that the question decides."""
    project = find_project(folder, resolve_range)
    choice = choose_version(
        requested=version,
        configured=configured_version,
        project=project,
        indexed=indexed,
        latest=latest,
    )
    chosen_router = router or (configured_router if configured_router != "auto" else None)
    if chosen_router is None and project is not None:
        chosen_router = project.router_for(folder)
    if choice is None:
        return Target(None, chosen_router, "unknown", project)
    return Target(choice.version, chosen_router, choice.reason, project)


def _version_key(version: str) -> tuple[int, int, int, int, str]:
    core, _, pre = version.partition("-")
    numbers = [int(part) if part.isdigit() else 0 for part in core.split(".")[:3]]
    while len(numbers) < 3:
        numbers.append(0)
    # A release sorts after its own pre-releases.
    return (numbers[0], numbers[1], numbers[2], 0 if pre else 1, pre)


def _newest(versions: Sequence[str]) -> str:
    return max(versions, key=_version_key)

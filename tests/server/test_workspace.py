"""Project, version and router detection on real folders."""

import json
from pathlib import Path

import pytest

from raggin_lsp.project import ProjectCache, choose_version, find_project

FIXTURE = Path(__file__).parents[1] / "fixtures" / "nextjs-project"


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def make_project(
    root: Path, declared: str | None = "^16.2.0", installed: str | None = None
) -> Path:
    dependencies = {"next": declared} if declared else {}
    write_json(root / "package.json", {"name": "app", "dependencies": dependencies})
    if installed:
        write_json(root / "node_modules" / "next" / "package.json", {"version": installed})
    return root


def resolver(spec: str) -> str | None:
    table = {"^16.2.0": "16.4.6", "~15.5.0": "15.5.9", "^99.0.0": None}
    return table[spec]


def test_fixture_project_uses_its_installed_version() -> None:
    project = find_project(FIXTURE / "app" / "actions.ts", resolver)
    assert project is not None
    assert (project.root, project.version, project.version_source) == (
        FIXTURE,
        "16.2.0",
        "installed",
    )
    assert project.router_for(FIXTURE / "app" / "page.tsx") == "app"


def test_installed_version_wins_over_the_declared_range(tmp_path: Path) -> None:
    make_project(tmp_path, "^16.2.0", installed="16.2.3")
    project = find_project(tmp_path / "app" / "page.tsx", resolver)
    assert project is not None
    assert project.version == "16.2.3"


def test_declared_range_resolves_to_the_newest_match(tmp_path: Path) -> None:
    make_project(tmp_path, "~15.5.0")
    project = find_project(tmp_path / "pages" / "index.tsx", resolver)
    assert project is not None
    assert (project.version, project.version_source, project.declared) == (
        "15.5.9",
        "declared",
        "~15.5.0",
    )


def test_unresolvable_range_is_explained(tmp_path: Path) -> None:
    make_project(tmp_path, "^99.0.0")
    project = find_project(tmp_path / "a.ts", resolver)
    assert project is not None
    assert project.version is None
    assert project.problem is not None
    assert "^99.0.0" in project.problem


def test_resolver_errors_become_the_problem(tmp_path: Path) -> None:
    make_project(tmp_path, "workspace:*")

    def failing(spec: str) -> str:
        raise ValueError(f"{spec!r} is not a range")

    project = find_project(tmp_path / "a.ts", failing)
    assert project is not None
    assert project.version is None
    assert project.problem is not None
    assert "workspace:*" in project.problem


def test_monorepo_package_without_next_is_skipped_and_hoisted_install_found(
    tmp_path: Path,
) -> None:
    make_project(tmp_path, None, installed="16.1.0")  # root: next hoisted, not declared
    write_json(tmp_path / "packages" / "ui" / "package.json", {"name": "ui"})
    web = make_project(tmp_path / "apps" / "web", "^16.0.0")

    ui = find_project(tmp_path / "packages" / "ui" / "button.tsx", resolver)
    app = find_project(web / "app" / "page.tsx", resolver)

    assert ui is not None
    assert ui.root == tmp_path
    assert app is not None
    assert app.root == web
    assert app.version == "16.1.0"  # Node resolves the hoisted copy


def test_outside_any_next_project(tmp_path: Path) -> None:
    write_json(tmp_path / "package.json", {"name": "not-next", "dependencies": {"react": "19"}})
    assert find_project(tmp_path / "src" / "index.ts", resolver) is None


@pytest.mark.parametrize(
    ("folders", "document", "router"),
    [
        pytest.param(["app"], "components/x.tsx", "app", id="only-app"),
        pytest.param(["src/pages"], "src/components/x.tsx", "pages", id="only-src-pages"),
        pytest.param(["app", "pages"], "pages/index.tsx", "pages", id="both-document-in-pages"),
        pytest.param(["app", "pages"], "app/page.tsx", "app", id="both-document-in-app"),
        pytest.param(["src/app", "src/pages"], "lib/x.ts", None, id="both-document-elsewhere"),
        pytest.param([], "index.ts", None, id="no-router-folder"),
    ],
)
def test_router_from_folders(
    tmp_path: Path, folders: list[str], document: str, router: str | None
) -> None:
    make_project(tmp_path, installed="16.2.0")
    for folder in folders:
        (tmp_path / folder).mkdir(parents=True)
    project = find_project(tmp_path / document, resolver)
    assert project is not None
    assert project.router_for(tmp_path / document) == router


def test_cache_notices_an_upgrade(tmp_path: Path) -> None:
    make_project(tmp_path, installed="16.2.0")
    cache = ProjectCache(resolver)
    first = cache.find(tmp_path / "app" / "page.tsx")
    manifest = tmp_path / "node_modules" / "next" / "package.json"
    write_json(manifest, {"version": "16.2.1"})
    import os

    stat = manifest.stat()
    os.utime(manifest, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    second = cache.find(tmp_path / "app" / "page.tsx")
    assert first is not None
    assert second is not None
    assert (first.version, second.version) == ("16.2.0", "16.2.1")


@pytest.mark.parametrize(
    ("requested", "configured", "project_version", "indexed", "expected"),
    [
        pytest.param("15.5.9", "16.0.0", "16.2.0", ["16.4.6"], ("15.5.9", "request"), id="request"),
        pytest.param(None, "16.0.0", "16.2.0", ["16.4.6"], ("16.0.0", "setting"), id="setting"),
        pytest.param(None, "latest", "16.2.0", [], ("16.4.6", "setting"), id="setting-latest"),
        pytest.param(
            None, "auto", "16.2.0", ["16.4.6"], ("16.2.0", "project (installed)"), id="project"
        ),
        pytest.param(
            None,
            "auto",
            None,
            ["16.2.0", "16.10.0", "16.9.1"],
            ("16.10.0", "newest indexed"),
            id="newest-indexed",
        ),
        pytest.param(None, "auto", None, [], ("16.4.6", "newest release"), id="newest-release"),
    ],
)
def test_choose_version_order(
    tmp_path: Path,
    requested: str | None,
    configured: str,
    project_version: str | None,
    indexed: list[str],
    expected: tuple[str, str],
) -> None:
    project = None
    if project_version:
        make_project(tmp_path, installed=project_version)
        project = find_project(tmp_path, resolver)
    choice = choose_version(
        requested=requested,
        configured=configured,
        project=project,
        indexed=indexed,
        latest="16.4.6",
    )
    assert choice is not None
    assert (choice.version, choice.reason) == expected


def test_choose_version_with_nothing_known() -> None:
    assert (
        choose_version(requested=None, configured="auto", project=None, indexed=[], latest=None)
        is None
    )

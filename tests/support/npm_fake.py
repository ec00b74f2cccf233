"""A fake npm registry and codeload host on 127.0.0.1, and builders for docs archives.

The archives use the real layouts: ``package/dist/docs/...`` for npm tarballs and
``next.js-<version>/docs/...`` plus ``.../errors/...`` for GitHub tag archives.
"""

import base64
import hashlib
import io
import json
import tarfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def sri_sha512(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def tar_bytes(files: Mapping[str, bytes | str], *, gzip: bool = True) -> bytes:
    """A tar archive holding regular files, in the order given."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if gzip else "w") as tar:
        for name, content in files.items():
            data = content.encode("utf-8") if isinstance(content, str) else content
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def npm_tarball(version: str, docs: Mapping[str, str], *, extra: Mapping[str, str] = {}) -> bytes:
    """An npm ``next`` tarball bundling ``docs`` (paths relative to dist/docs/)."""
    files: dict[str, bytes | str] = {
        "package/package.json": json.dumps({"name": "next", "version": version}),
        "package/dist/server/next.js": "module.exports = {}\n",
    }
    files.update({f"package/dist/docs/{path}": text for path, text in docs.items()})
    files.update(extra)
    return tar_bytes(files)


def github_archive(version: str, docs: Mapping[str, str], errors: Mapping[str, str] = {}) -> bytes:
    """A codeload tag archive: ``next.js-<version>/`` with docs/, errors/ and other code."""
    top = f"next.js-{version}"
    files: dict[str, bytes | str] = {
        f"{top}/package.json": json.dumps({"name": "nextjs-project", "private": True}),
        f"{top}/packages/next/README.md": "# not docs\n",
    }
    files.update({f"{top}/docs/{path}": text for path, text in docs.items()})
    files.update({f"{top}/errors/{path}": text for path, text in errors.items()})
    return tar_bytes(files)


def registry_metadata(
    base_url: str, tarballs: Mapping[str, bytes], *, other_versions: tuple[str, ...] = ()
) -> dict[str, object]:
    """Abbreviated package metadata listing ``tarballs`` (served by the fake) and others."""
    versions: dict[str, object] = {}
    for version, data in tarballs.items():
        versions[version] = {
            "name": "next",
            "version": version,
            "dist": {
                "tarball": f"{base_url}/next/-/next-{version}.tgz",
                "integrity": sri_sha512(data),
            },
        }
    for version in other_versions:
        versions[version] = {
            "name": "next",
            "version": version,
            "dist": {
                "tarball": f"{base_url}/next/-/next-{version}.tgz",
                "integrity": "sha512-AA==",
            },
        }
    stable = [v for v in versions if "-" not in v]
    latest = max(stable, key=lambda v: tuple(int(p) for p in v.split("."))) if stable else None
    return {"name": "next", "dist-tags": {"latest": latest}, "versions": versions}


@dataclass
class FakeHost:
    """What the server serves (path -> body) and what it was asked."""

    base_url: str = ""
    routes: dict[str, bytes] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    etag: str | None = None

    def serve_json(self, path: str, data: object) -> None:
        self.routes[path] = json.dumps(data).encode("utf-8")

    def paths_requested(self) -> list[str]:
        return [path for path, _headers in self.requests]


@contextmanager
def fake_host() -> Iterator[FakeHost]:
    """Runs an HTTP server on 127.0.0.1 in a thread; 404 for unknown paths."""
    host = FakeHost()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            headers = {key.lower(): value for key, value in self.headers.items()}
            host.requests.append((self.path, headers))
            body = host.routes.get(self.path)
            if body is None:
                self.send_error(404)
                return
            if host.etag and headers.get("if-none-match") == host.etag:
                self.send_response(304)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            if host.etag:
                self.send_header("ETag", host.etag)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return  # keep test output clean

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    host.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    try:
        yield host
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def unused_local_url() -> str:
    """A 127.0.0.1 URL nobody listens on: stands for an unreachable registry."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def write_files(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root

"""``raggin-lsp serve --tcp`` listens on this machine only unless told otherwise, and
warns when it is told otherwise: LSP has no authentication."""

import io

import pytest

from raggin_lsp.cli import build_parser
from raggin_lsp.server.entry import warn_if_exposed


def test_tcp_listens_on_loopback_by_default() -> None:
    args = build_parser().parse_args(["serve", "--tcp"])
    assert args.host == "127.0.0.1"


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost", "127.0.0.2"])
def test_loopback_hosts_start_quietly(host: str) -> None:
    stream = io.StringIO()
    assert not warn_if_exposed(host, stream)
    assert stream.getvalue() == ""


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "devbox.example"])
def test_any_other_host_is_warned_about(host: str) -> None:
    stream = io.StringIO()
    assert warn_if_exposed(host, stream)
    assert "no authentication" in stream.getvalue()
    assert host in stream.getvalue()

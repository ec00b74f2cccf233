"""Fixtures of the end-to-end tests that talk raw JSON-RPC (see wire_harness.py)."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e.wire_harness import Wire, serve_over_wire


@pytest.fixture
async def wire(tmp_path: Path) -> AsyncIterator[Wire]:
    """A fresh server per test, initialized, with one page open."""
    async with serve_over_wire(tmp_path) as served:
        yield served

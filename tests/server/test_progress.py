"""Coalescing streamed text: joined reports equal the input; at most one per interval."""

import itertools
from collections.abc import Callable

import pytest

from raggin_lsp.server.progress import Coalescer


class FakeTime:
    """A clock and a timer queue the test advances by hand."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[tuple[float, Callable[[], None], Handle]] = []

    def clock(self) -> float:
        return self.now

    def schedule(self, delay: float, callback: Callable[[], None]) -> "Handle":
        handle = Handle()
        self.timers.append((self.now + delay, callback, handle))
        return handle

    def advance(self, seconds: float) -> None:
        self.now += seconds
        due = [t for t in self.timers if t[0] <= self.now + 1e-12]
        self.timers = [t for t in self.timers if t not in due]
        for _, callback, handle in due:
            if not handle.cancelled:
                callback()


class Handle:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def make(interval: float = 0.05) -> tuple[Coalescer, list[tuple[float, str]], FakeTime]:
    time = FakeTime()
    emitted: list[tuple[float, str]] = []
    coalescer = Coalescer(
        lambda text: emitted.append((time.now, text)),
        interval=interval,
        clock=time.clock,
        schedule=time.schedule,
    )
    return coalescer, emitted, time


@pytest.mark.parametrize(
    ("gaps", "expected_reports"),
    [
        pytest.param([0.0] * 100, 1, id="burst-then-flush"),
        pytest.param([0.1] * 10, 10, id="slow-stream-one-report-per-chunk"),
        pytest.param([0.01] * 50, 11, id="fast-stream-about-one-per-50ms"),
    ],
)
def test_reports_are_rate_limited_and_lossless(gaps: list[float], expected_reports: int) -> None:
    coalescer, emitted, time = make()
    chunks = [f"tok{i} " for i in range(len(gaps))]
    for gap, chunk in zip(gaps, chunks, strict=True):
        time.advance(gap)
        coalescer.add(chunk)
    coalescer.flush()

    assert "".join(text for _, text in emitted) == "".join(chunks)
    assert len(emitted) == pytest.approx(expected_reports, abs=1)
    stamps = [stamp for stamp, _ in emitted[:-1]]  # the final flush may come at any time
    assert all(b - a >= 0.05 - 1e-9 for a, b in itertools.pairwise(stamps))


def test_buffered_text_is_sent_by_the_timer_without_waiting_for_more_chunks() -> None:
    coalescer, emitted, time = make()
    coalescer.add("Hello")
    time.advance(0.01)
    coalescer.add(" world")
    assert [text for _, text in emitted] == ["Hello"]

    time.advance(0.05)

    assert [text for _, text in emitted] == ["Hello", " world"]


def test_empty_chunks_and_empty_flush_emit_nothing() -> None:
    coalescer, emitted, _ = make()
    coalescer.add("")
    coalescer.flush()
    assert emitted == []


def test_whitespace_only_chunks_are_kept() -> None:
    coalescer, emitted, time = make()
    for chunk in ["a", "\n", "  ", "b"]:
        coalescer.add(chunk)
        time.advance(0.001)
    coalescer.flush()
    assert "".join(text for _, text in emitted) == "a\n  b"

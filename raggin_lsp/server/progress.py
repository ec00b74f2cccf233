"""Work-done progress done defensively, and streamed text coalesced into few reports.

:class:`Coalescer` is pure (clock and timer are injected) so its guarantee is unit
tested: the texts it emits, joined, are exactly the texts it was given, and it emits
at most once per interval. :class:`WorkDone` wraps LSP ``$/progress``: it creates a token
when the client gave none (and carries on silently if the client refuses), and always
sends ``end``.
"""

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types

if TYPE_CHECKING:
    from raggin_lsp.server.server import RagginServer

log = logging.getLogger(__name__)

REPORT_INTERVAL = 0.05  # seconds: at most ~20 reports a second reach the client


class Cancellable(Protocol):
    def cancel(self) -> Any: ...


Scheduler = Callable[[float, Callable[[], None]], Cancellable]


class Coalescer:
    """Buffers streamed text; emits it at most once per ``interval`` seconds.

    A chunk arriving after a quiet period is emitted at once; chunks arriving sooner
    are joined and emitted when the interval is up (by a timer), so text never waits
    for the next chunk. ``flush`` emits whatever is left (call it at the end).
    """

    def __init__(
        self,
        emit: Callable[[str], None],
        *,
        interval: float = REPORT_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        schedule: Scheduler | None = None,
    ) -> None:
        self._emit = emit
        self._interval = interval
        self._clock = clock
        self._schedule = schedule
        self._buffer: list[str] = []
        self._last: float | None = None
        self._timer: Cancellable | None = None

    def add(self, text: str) -> None:
        if not text:
            return
        self._buffer.append(text)
        now = self._clock()
        if self._last is None or now - self._last >= self._interval:
            self.flush()
        elif self._timer is None:
            delay = self._interval - (now - self._last)
            self._timer = self._scheduler()(delay, self._on_timer)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._buffer:
            return
        text = "".join(self._buffer)
        self._buffer.clear()
        self._last = self._clock()
        self._emit(text)

    def _on_timer(self) -> None:
        self._timer = None
        self.flush()

    def _scheduler(self) -> Scheduler:
        if self._schedule is None:
            loop = asyncio.get_running_loop()
            self._schedule = loop.call_later
        return self._schedule


def supports_work_done_progress(server: "RagginServer") -> bool:
    window = server.client_capabilities.window
    return bool(window and window.work_done_progress)


class WorkDone:
    """One ``$/progress`` sequence: ``begin``, any number of ``report``, always ``end``.

    Use as ``async with WorkDone(server, "Title", token=params.work_done_token) as work``.
    With no usable token, reports are dropped: the work itself goes on.
    """

    def __init__(
        self,
        server: "RagginServer",
        title: str,
        *,
        token: types.ProgressToken | None = None,
        cancellable: bool = False,
        message: str | None = None,
        percentage: bool = False,
    ) -> None:
        self._server = server
        self.title = title
        self.token = token
        self._client_token = token is not None
        self._cancellable = cancellable
        self._message = message
        self._percentage = 0 if percentage else None
        self.end_message: str | None = None
        self._active = False

    async def __aenter__(self) -> "WorkDone":
        if self.token is None and supports_work_done_progress(self._server):
            token = f"raggin-{uuid.uuid4()}"
            try:
                await self._server.work_done_progress.create_async(token)
            except Exception as error:  # a refusal is the client's right: go on without
                log.info("The client refused a progress token (%s); going on without", error)
            else:
                self.token = token
        if self.token is not None:
            self._server.jobs.attach_token(self.token)
            self._server.work_done_progress.begin(
                self.token,
                types.WorkDoneProgressBegin(
                    title=self.title,
                    cancellable=self._cancellable,
                    message=self._message,
                    percentage=self._percentage,
                ),
            )
            self._active = True
        return self

    def report(self, message: str | None = None, percentage: int | None = None) -> None:
        if not self._active or self.token is None or not self._server.connected:
            return
        if percentage is not None:
            percentage = max(0, min(100, int(percentage)))
        self._server.work_done_progress.report(
            self.token,
            types.WorkDoneProgressReport(message=message, percentage=percentage),
        )

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if not self._active or self.token is None:
            return
        self._active = False
        message = self.end_message
        if message is None and exc_type is not None:
            if issubclass(exc_type, asyncio.CancelledError):
                message = "Cancelled"
            else:
                message = f"Failed: {exc}"
        try:
            if self._server.connected:
                self._server.work_done_progress.end(
                    self.token, types.WorkDoneProgressEnd(message=message)
                )
        finally:
            self._server.jobs.detach_token(self.token)
            # pygls keeps one future per token forever; ours are done with.
            self._server.work_done_progress.tokens.pop(self.token, None)

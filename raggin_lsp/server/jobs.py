"""Running requests and their progress tokens, so both kinds of cancellation reach them.

pygls cancels a request by cancelling its future; for a command, that future is only
the wrapper around the command's own task, which would keep running. So every long
request registers its task here under its JSON-RPC id and its progress token, and the
server cancels the task itself on ``$/cancelRequest`` and on
``window/workDoneProgress/cancel``.
"""

import asyncio
import logging
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any

log = logging.getLogger(__name__)

RequestId = int | str
Token = int | str


class Jobs:
    def __init__(self) -> None:
        self._by_request: dict[RequestId, asyncio.Task[Any]] = {}
        self._by_token: dict[Token, asyncio.Task[Any]] = {}
        self._background: set[asyncio.Task[Any]] = set()

    @contextmanager
    def request(self, request_id: RequestId | None) -> Iterator[None]:
        """Register the running task as the one serving ``request_id``."""
        task = asyncio.current_task()
        if request_id is None or task is None:
            yield
            return
        self._by_request[request_id] = task
        try:
            yield
        finally:
            if self._by_request.get(request_id) is task:
                del self._by_request[request_id]

    def attach_token(self, token: Token) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._by_token[token] = task

    def detach_token(self, token: Token) -> None:
        self._by_token.pop(token, None)

    def cancel_request(self, request_id: RequestId) -> bool:
        task = self._by_request.pop(request_id, None)
        if task is None or task.done():
            return False
        log.info("Cancelling request %s", request_id)
        return task.cancel(f"request {request_id} cancelled by the client")

    def cancel_token(self, token: Token) -> bool:
        task = self._by_token.get(token)
        if task is None or task.done():
            return False
        log.info("Cancelling the work behind progress %s", token)
        return task.cancel(f"progress {token} cancelled by the client")

    def spawn(self, coroutine: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Run in the background, keeping a strong reference and logging any failure."""
        task = asyncio.get_running_loop().create_task(coroutine, name=name)
        self._background.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log.error("Background task %s failed: %s", task.get_name(), error, exc_info=error)

    def cancel_all(self) -> None:
        for task in [*self._background, *self._by_request.values()]:
            task.cancel("the server is shutting down")

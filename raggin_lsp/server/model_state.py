"""Where the embedding model stands, and when a failed load may be tried again.

Only search, ask and indexing need the embedding model; everything else answers without
it. A failed load (typically: ``bge-m3`` cannot be downloaded) is remembered, so the
requests that need the model fail at once with what to do instead of retrying a
download that takes seconds each time. It is tried again on request, or by itself once
``retry_after`` seconds have passed. Pure: the clock is injected.
"""

import time
from collections.abc import Callable
from typing import Any, Literal

from raggin_lsp.errors import ModelError, RagginError

Phase = Literal["not loaded", "loading", "ready", "failed"]
# A failed model load is not tried again by itself before this many seconds.
MODEL_RETRY_S = 300.0
RETRY_COMMAND = "raggin.retryModel"
# The profile that answers while another one's model or index is not there (see
# :mod:`.upgrade`): small, fetched from PyPI, lexical within seconds.
FALLBACK_PROFILE = "light"


class ModelUnavailable(ModelError):
    """The embedding model failed to load earlier; the failure is remembered."""


def what_to_do(profile: str) -> str:
    """How a user gets a working embedding model (for the failure's message)."""
    if profile == "light":
        return (
            "Connect to the internet once (the light model comes from PyPI), "
            "or set raggin.modelPath to a folder holding it."
        )
    return (
        f"Set raggin.profile to 'light' (small, fetched from PyPI), or set "
        f"raggin.modelPath to a folder holding the {profile} model files, "
        "or connect to the internet once."
    )


class ModelState:
    """``not loaded`` -> ``loading`` -> ``ready`` or ``failed`` (remembered)."""

    def __init__(
        self,
        profile: str,
        *,
        clock: Callable[[], float] = time.monotonic,
        retry_after: float = MODEL_RETRY_S,
    ) -> None:
        self.profile = profile
        self.phase: Phase = "not loaded"
        self.error: RagginError | None = None
        self.attempts = 0
        self._clock = clock
        self._retry_after = retry_after
        self._failed_at: float | None = None
        self._reported: str | None = None

    def start(self) -> None:
        self.phase = "loading"
        self.attempts += 1

    def succeed(self) -> None:
        self.phase = "ready"
        self.error = None
        self._failed_at = None
        self._reported = None

    def fail(self, error: RagginError) -> bool:
        """Remember ``error``; ``True`` when the user has not been told this one yet."""
        self.phase = "failed"
        self.error = error
        self._failed_at = self._clock()
        new = str(error) != self._reported
        self._reported = str(error)
        return new

    def stop(self) -> None:
        """The load was cancelled (settings changed, shutdown): nothing is remembered."""
        self.phase = "not loaded"

    def retry_in(self) -> float | None:
        """Seconds until a failed load may be tried again by itself (0: now)."""
        if self.phase != "failed" or self._failed_at is None:
            return None
        return max(0.0, self._failed_at + self._retry_after - self._clock())

    def may_start(self, *, requested: bool = False) -> bool:
        """Whether a load may begin now: never while one runs or after success; after a
        failure only when ``requested`` (the user asked) or once the backoff passed."""
        if self.phase == "not loaded":
            return True
        if self.phase == "failed":
            return requested or self.retry_in() == 0.0
        return False

    def report(self) -> str:
        """The failure, what to do, and when it is tried again (to show the user)."""
        wait = self.retry_in()
        minutes = max(1, round((wait or 0.0) / 60))
        if self.profile == FALLBACK_PROFILE:
            meanwhile = (
                "Search, ask and indexing need it; versions, status, hovers and "
                "diagnostics work without it."
            )
        else:
            meanwhile = (
                f"Meanwhile raggin answers from the {FALLBACK_PROFILE} profile's index "
                "(indexed when needed) and stays on it."
            )
        return (
            f"raggin: the {self.profile} embedding model is not available: {self.error} "
            f"What to do: {what_to_do(self.profile)} {meanwhile} raggin tries again in "
            f"{minutes} min, or now with the {RETRY_COMMAND} command."
        )

    def unavailable(self) -> ModelUnavailable:
        """The error a request that needs the model answers while the failure holds."""
        return ModelUnavailable(self.report())

    def to_json(self) -> dict[str, Any]:
        wait = self.retry_in()
        return {
            "state": self.phase,
            "profile": self.profile,
            "error": str(self.error) if self.error is not None else None,
            "attempts": self.attempts,
            "retryInSeconds": round(wait) if wait is not None else None,
        }

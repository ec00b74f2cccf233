"""The embedding model's state: a failure is remembered, reported once, and tried again
only on request or after the backoff (with an injected clock)."""

import pytest

from raggin_lsp.errors import OfflineError
from raggin_lsp.server.model_state import ModelState, ModelUnavailable

RETRY_AFTER = 300.0


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def failed_state(clock: Clock, message: str = "Could not download BAAI/bge-m3") -> ModelState:
    state = ModelState("bge-m3", clock=clock, retry_after=RETRY_AFTER)
    state.start()
    state.fail(OfflineError(message))
    return state


def test_a_fresh_state_may_load_once_and_not_while_loading() -> None:
    state = ModelState("bge-m3", clock=Clock())
    assert state.phase == "not loaded"
    assert state.may_start()
    state.start()
    assert state.phase == "loading"
    assert not state.may_start()
    assert not state.may_start(requested=True)
    state.succeed()
    assert state.phase == "ready"
    assert not state.may_start(requested=True)
    assert state.to_json()["attempts"] == 1


@pytest.mark.parametrize(
    ("elapsed", "may_start"),
    [
        pytest.param(0.0, False, id="just-failed"),
        pytest.param(RETRY_AFTER - 1, False, id="before-the-backoff"),
        pytest.param(RETRY_AFTER, True, id="backoff-passed"),
        pytest.param(RETRY_AFTER * 10, True, id="long-after"),
    ],
)
def test_a_failure_is_tried_again_by_itself_only_after_the_backoff(
    elapsed: float, may_start: bool
) -> None:
    clock = Clock()
    state = failed_state(clock)
    clock.now += elapsed
    assert state.may_start() is may_start
    assert state.retry_in() == max(0.0, RETRY_AFTER - elapsed)


def test_a_request_to_retry_may_start_at_once() -> None:
    state = failed_state(Clock())
    assert not state.may_start()
    assert state.may_start(requested=True)


def test_the_same_failure_is_reported_once_a_new_one_again() -> None:
    clock = Clock()
    state = ModelState("bge-m3", clock=clock, retry_after=RETRY_AFTER)
    state.start()
    assert state.fail(OfflineError("no network")) is True
    clock.now += RETRY_AFTER
    state.start()
    assert state.fail(OfflineError("no network")) is False
    state.start()
    assert state.fail(OfflineError("disk full")) is True
    assert state.to_json()["attempts"] == 3


def test_the_error_for_requests_names_the_failure_what_to_do_and_the_retry() -> None:
    clock = Clock()
    state = failed_state(clock, "Could not download BAAI/bge-m3 (500)")
    clock.now += 60
    error = state.unavailable()
    assert isinstance(error, ModelUnavailable)
    message = str(error)
    assert "Could not download BAAI/bge-m3 (500)" in message
    assert "'light'" in message
    assert "raggin.modelPath" in message
    assert "in 4 min" in message
    assert "raggin.retryModel" in message


def test_status_says_failed_with_the_message_and_when_it_is_tried_again() -> None:
    clock = Clock()
    state = failed_state(clock, "no network")
    clock.now += 100
    assert state.to_json() == {
        "state": "failed",
        "profile": "bge-m3",
        "error": "no network",
        "attempts": 1,
        "retryInSeconds": 200,
    }


def test_a_cancelled_load_remembers_nothing() -> None:
    state = ModelState("bge-m3", clock=Clock())
    state.start()
    state.stop()
    assert state.phase == "not loaded"
    assert state.may_start()

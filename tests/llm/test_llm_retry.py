from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from hopkit.errors import LLMError, LLMServerError
from hopkit.llm import retry
from hopkit.llm.retry import TransientError, backoff_delay, parse_retry_after, retry_call

pytestmark = pytest.mark.unit


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    recorded: list[float] = []
    monkeypatch.setattr(retry, "_sleep", recorded.append)
    return recorded


def test_parse_retry_after_seconds_and_dates() -> None:
    assert parse_retry_after(None) is None
    assert parse_retry_after("") is None
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("soon") is None
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=30), usegmt=True)
    assert 25 <= parse_retry_after(later) <= 31  # type: ignore[operator]
    past = format_datetime(datetime.now(timezone.utc) - timedelta(days=1), usegmt=True)
    assert parse_retry_after(past) == 0.0


def test_backoff_is_exponential_and_honours_retry_after() -> None:
    assert [backoff_delay(i, 1.0, None) for i in range(4)] == [1.0, 2.0, 4.0, 8.0]
    assert backoff_delay(0, 1.0, 5.0) == 5.0
    assert backoff_delay(3, 1.0, 5.0) == 8.0
    assert backoff_delay(30, 1.0, None) == retry.MAX_DELAY_SECONDS


def test_retry_call_retries_transient_failures_then_succeeds(waits: list[float]) -> None:
    outcomes = [TransientError("HTTP 500"), TransientError("HTTP 429", retry_after=3.0), "ok"]

    def attempt() -> str:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    assert retry_call(attempt, url="http://x/v1/completions", max_retries=4, backoff=0.5) == "ok"
    assert waits == [0.5, 3.0]


def test_retry_call_gives_up_with_server_error_naming_url(waits: list[float]) -> None:
    calls = []

    def attempt() -> str:
        calls.append(1)
        raise TransientError("HTTP 503: overloaded")

    with pytest.raises(LLMServerError, match=r"http://x/v1/completions failed 3 time.*HTTP 503: overloaded"):
        retry_call(attempt, url="http://x/v1/completions", max_retries=2, backoff=1.0)
    assert len(calls) == 3
    assert waits == [1.0, 2.0]


def test_retry_call_does_not_retry_other_errors(waits: list[float]) -> None:
    calls = []

    def attempt() -> str:
        calls.append(1)
        raise LLMError("HTTP 400: bad request")

    with pytest.raises(LLMError, match="HTTP 400") as caught:
        retry_call(attempt, url="http://x", max_retries=5, backoff=1.0)
    assert not isinstance(caught.value, LLMServerError)
    assert len(calls) == 1
    assert waits == []

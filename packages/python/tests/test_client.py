"""The clients against a real nerkh: every test runs against NerkhClient and AsyncNerkhClient
(the ``make_client`` fixture), as packages/client/test/client.test.ts runs the TypeScript one."""

from __future__ import annotations

import logging
import socket
import threading
from typing import Iterator, List

import pytest

from nerkh_client import (
    AsyncNerkhClient,
    NerkhBudgetError,
    NerkhClient,
    NerkhProblemError,
    NerkhRequestError,
    RateLimitInfo,
    RateLimitPolicy,
    RateLimitState,
    RetryOptions,
    is_stale,
    row_age_seconds,
)

from .conftest import MakeClient, Nerkh, Starter

WRONG_KEY = "nerkh_aaaaaaaaaaaaaaaaaaaaaa_aaaaaa"


def test_returns_typed_rates_one_symbol_case_insensitively_and_the_rate_limit_fields(
    nerkh: Nerkh, make_client: MakeClient
) -> None:
    client = make_client(nerkh, cache=False)
    every = client.get_rates()
    assert every.status == 200
    assert every.data.side == "sell"
    assert [row.symbol for row in every.data.rates] == ["BTC", "ETH", "SHIB", "USDT"]
    assert every.data.count == 4
    assert every.data.usdt_irt == 92_150
    assert every.rate_limit == RateLimitInfo(
        policies=(RateLimitPolicy("default", 60, 60),), limits=(RateLimitState("default", 59, 60),)
    )
    btc = client.get_rates(symbol="btc")
    assert len(btc.data.rates) == 1
    assert btc.data.rates[0].sell_irt == round(97_250.5 * 92_150)
    assert btc.data.rates[0].sell_usdt == 97_250.5
    assert client.rate_limit is not None and client.rate_limit.limits[0].remaining == 58
    assert nerkh.requests() == ["/v1/rates", "/v1/rates?symbol=btc"]


def test_reads_source_and_tether_source_when_the_server_sends_them_and_none_when_not(
    nerkh: Nerkh, make_client: MakeClient
) -> None:
    rates = make_client(nerkh).get_rates().data
    for row, raw in zip(rates.rates, rates.raw["rates"]):
        assert row.source == raw.get("source")
        assert row.tether_source == raw.get("tether_source")


def test_turns_every_problem_into_a_nerkh_problem_error_with_code_status_and_detail(
    nerkh: Nerkh, make_client: MakeClient
) -> None:
    client = make_client(nerkh, cache=False)
    with pytest.raises(NerkhProblemError) as unknown:
        client.get_rates(symbol="DOGE")
    assert (unknown.value.code, unknown.value.status, unknown.value.retry_after) == ("unknown-symbol", 404, None)
    assert "DOGE is not listed" in unknown.value.detail
    assert unknown.value.problem["code"] == "unknown-symbol"
    with pytest.raises(NerkhProblemError) as invalid:
        client.get_rates(symbol="no-such!")
    assert (invalid.value.code, invalid.value.status) == ("invalid-symbol", 400)
    with pytest.raises(NerkhProblemError) as wrong:
        make_client(nerkh, api_key=WRONG_KEY).get_rates()
    assert (wrong.value.code, wrong.value.status) == ("invalid-api-key", 403)
    with pytest.raises(ValueError, match="api_key is required"):
        make_client(nerkh, api_key=None).get_rates()


def test_on_429_waits_retry_after_on_the_fake_clock_and_retries_once_when_asked(
    nerkh: Nerkh, make_client: MakeClient
) -> None:
    limited = nerkh.issue(1)
    client = make_client(nerkh, api_key=limited, cache=False, budget=False, retry=RetryOptions(attempts=1))
    client.get_rates()
    assert client.get_rates().status == 200
    assert nerkh.sleeps == [60]
    assert [answer["status"] for answer in nerkh.answers()] == [200, 429, 200]


def test_does_not_retry_a_429_by_default_nor_one_asking_for_a_longer_wait_than_allowed(
    nerkh: Nerkh, make_client: MakeClient
) -> None:
    limited = nerkh.issue(1)
    plain = make_client(nerkh, api_key=limited, cache=False, budget=False)
    plain.get_rates()
    with pytest.raises(NerkhProblemError) as refused:
        plain.get_rates()
    assert (refused.value.code, refused.value.status, refused.value.retry_after) == ("rate-limited", 429, 60)
    impatient = make_client(
        nerkh, api_key=limited, cache=False, budget=False, retry=RetryOptions(attempts=3, max_wait_seconds=10)
    )
    with pytest.raises(NerkhProblemError) as still:
        impatient.get_rates()
    assert (still.value.code, still.value.retry_after) == ("rate-limited", 60)
    assert nerkh.sleeps == []


def test_never_retries_401_or_403_even_with_retries_on(nerkh: Nerkh, make_client: MakeClient) -> None:
    client = make_client(nerkh, api_key=WRONG_KEY, retry=RetryOptions(attempts=5, max_wait_seconds=3600))
    with pytest.raises(NerkhProblemError) as refused:
        client.get_rates()
    assert refused.value.status == 403
    assert nerkh.sleeps == []
    assert len(nerkh.requests()) == 1


def test_keeps_under_the_quota_with_its_budget_and_the_request_over_it_never_reaches_the_server(
    nerkh: Nerkh, make_client: MakeClient
) -> None:
    limited = nerkh.issue(2)
    client = make_client(nerkh, api_key=limited, cache=False)
    client.get_rates()
    client.get_rates()
    with pytest.raises(NerkhBudgetError) as refused:
        client.get_rates()
    assert refused.value.retry_after == 60
    assert refused.value.code == "budget-exhausted"
    assert len(nerkh.requests()) == 2
    nerkh.advance(60)
    assert client.get_rates().status == 200


def test_with_retries_on_waits_out_its_own_budget_instead_of_being_refused(
    nerkh: Nerkh, make_client: MakeClient
) -> None:
    limited = nerkh.issue(1)
    client = make_client(nerkh, api_key=limited, cache=False, retry=RetryOptions(attempts=1))
    client.get_rates()
    assert client.get_rates().status == 200
    assert nerkh.sleeps == [60]
    assert len(nerkh.requests()) == 2


def test_polling_every_second_makes_one_request_per_max_age_then_revalidates_and_reuses_the_body(
    nerkh: Nerkh, make_client: MakeClient
) -> None:
    client = make_client(nerkh)
    first = client.get_rates()
    assert first.source == "network"
    # The sample snapshot was committed at 12:00, the clock reads 12:01 and refreshes are due every
    # 10 minutes: max-age is 540 s. Tens of seconds at a time keep the test quick; the cache reads
    # the same clock either way.
    for _ in range(1, 54):
        nerkh.advance(10)
        assert client.get_rates().source == "cache"
    nerkh.advance(9)
    assert client.get_rates().source == "cache"
    assert nerkh.requests() == ["/v1/rates"]
    nerkh.advance(1)
    revalidated = client.get_rates()
    assert revalidated.source == "revalidated"
    assert revalidated.data == first.data
    assert nerkh.answers() == [{"status": 200, "conditional": False}, {"status": 304, "conditional": True}]
    # 540 s later the first request has left the 60-second window: the 304 counted, 59 remain.
    assert revalidated.rate_limit is not None and revalidated.rate_limit.limits[0].remaining == 59


def test_sends_if_none_match_and_gets_304_even_without_max_age(nerkh: Nerkh, make_client: MakeClient) -> None:
    nerkh.advance(3600)  # the snapshot is overdue: Cache-Control says max-age=0
    client = make_client(nerkh)
    assert client.get_rates().source == "network"
    assert client.get_rates().source == "revalidated"
    assert [answer["status"] for answer in nerkh.answers()] == [200, 304]


def test_returns_the_health_report_without_a_key_503_included_and_never_caches_it(
    start_nerkh: Starter, make_client: MakeClient
) -> None:
    nerkh = start_nerkh(snapshot=False)
    client = make_client(nerkh, base_url=f"{nerkh.base_url}/v1/", api_key=None)
    health = client.get_health()
    assert health.status == 503
    assert health.data.status == "fail"
    assert health.data.updated_at is None
    assert "snapshot:age" in health.data.checks
    client.get_health()
    assert nerkh.requests() == ["/v1/health", "/v1/health"]
    with pytest.raises(NerkhProblemError) as unavailable:
        make_client(nerkh).get_rates()
    assert (unavailable.value.code, unavailable.value.status) == ("service-unavailable", 503)


def test_reports_a_healthy_service_with_its_checks(nerkh: Nerkh, make_client: MakeClient) -> None:
    health = make_client(nerkh, api_key=None).get_health()
    assert (health.status, health.data.status, health.data.count) == (200, "pass", 4)
    assert health.data.age_seconds == 60
    assert health.data.checks["snapshot:age"][0].observed_value == 60


def test_tells_a_rows_age_from_its_as_of_not_from_updated_at(nerkh: Nerkh, make_client: MakeClient) -> None:
    rows = {row.symbol: row for row in make_client(nerkh).get_rates().data.rates}
    # The snapshot is 60 s old (updated_at 12:00:00), but SHIB last moved at 09:00.
    assert row_age_seconds(rows["SHIB"], nerkh.now()) == 3 * 3600 + 60
    assert is_stale(rows["SHIB"], 3600, nerkh.now())
    assert not is_stale(rows["BTC"], 600, nerkh.now())


def test_sends_the_key_only_in_x_api_key_and_never_shows_it(
    nerkh: Nerkh, make_client: MakeClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # httpx's and httpcore's own logs included
    client = make_client(nerkh, api_key=WRONG_KEY)
    with pytest.raises(NerkhProblemError) as refused:
        client.get_rates()
    good = make_client(nerkh)
    assert good.get_rates().status == 200  # the service takes a key from X-API-Key only
    shown = [
        repr(good),
        str(good),
        str(refused.value),
        repr(refused.value),
        caplog.text,
        *nerkh.requests(),
    ]
    for text in shown:
        assert nerkh.key not in text and WRONG_KEY not in text
    assert "'***'" in repr(NerkhClient(nerkh.base_url, nerkh.key))
    assert nerkh.key not in repr(AsyncNerkhClient(nerkh.base_url, nerkh.key))


@pytest.mark.parametrize(
    "base_url",
    [
        "https://rates.example/v1?key=nerkh_AbC123abc",
        "https://rates.example/v1?api_key=x",
        "https://user:secret@rates.example/v1",
        "https://rates.example/nerkh_AbC123defGhi/v1",
        "https://rates.example/v1#nerkh",
    ],
)
def test_refuses_a_key_or_credentials_in_the_base_url(base_url: str) -> None:
    with pytest.raises(ValueError, match="must not carry a key") as refused:
        NerkhClient(base_url, "nerkh_key")
    assert "AbC123" not in str(refused.value) and "secret" not in str(refused.value)
    with pytest.raises(ValueError, match="must not carry a key"):
        AsyncNerkhClient(base_url, "nerkh_key")


def test_refuses_a_base_url_that_contains_the_configured_key_and_takes_either_base() -> None:
    with pytest.raises(ValueError, match="must not carry a key"):
        NerkhClient("https://rates.example/secret123", "secret123")
    with pytest.raises(ValueError, match="absolute URL|http: or https:"):
        NerkhClient("rates.example/v1")
    assert NerkhClient("https://rates.example").base_url == "https://rates.example/v1"
    assert NerkhClient("https://rates.example/v1/").base_url == "https://rates.example/v1"
    assert NerkhClient("http://[::1]:8080/api").base_url == "http://[::1]:8080/api/v1"


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A TCP server that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    accepted: List[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join()
    for connection in accepted:
        connection.close()
    listener.close()


def test_gives_up_after_the_timeout_with_a_request_error_of_code_timeout(silent_server: str) -> None:
    with NerkhClient(silent_server, timeout=0.2) as client:
        with pytest.raises(NerkhRequestError) as timed_out:
            client.get_health()
    assert timed_out.value.code == "timeout"
    assert "0.2 s" in str(timed_out.value)


def test_async_gives_up_after_the_timeout_too(silent_server: str) -> None:
    import asyncio

    async def call() -> None:
        async with AsyncNerkhClient(silent_server, timeout=0.2) as client:
            await client.get_health()

    with pytest.raises(NerkhRequestError) as timed_out:
        asyncio.run(call())
    assert timed_out.value.code == "timeout"


def test_a_refused_connection_is_a_request_error_of_code_network() -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    with NerkhClient(f"http://127.0.0.1:{port}", "nerkh_secretkey123") as client:
        with pytest.raises(NerkhRequestError) as failed:
            client.get_rates()
    assert failed.value.code == "network"
    assert "nerkh_secretkey123" not in str(failed.value)

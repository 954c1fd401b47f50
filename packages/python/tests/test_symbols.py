"""``get_rates(symbols=[…])`` against a real nerkh: several currencies in one request."""

from __future__ import annotations

import pytest

from nerkh_client import NerkhProblemError

from .conftest import MakeClient, Nerkh


def test_answers_the_named_currencies_sorted_each_once_for_one_request_of_the_quota(
    nerkh: Nerkh, make_client: MakeClient
) -> None:
    client = make_client(nerkh)
    result = client.get_rates(symbols=["USDT", "btc", "Eth", "BTC"])
    assert result.status == 200
    assert [row.symbol for row in result.data.rates] == ["BTC", "ETH", "USDT"]
    assert result.data.count == 3
    assert result.rate_limit is not None and result.rate_limit.limits[0].remaining == 59
    assert nerkh.requests() == ["/v1/rates?symbols=USDT,btc,Eth,BTC"]


def test_caches_each_set_apart_and_revalidates_it_with_its_own_etag(nerkh: Nerkh, make_client: MakeClient) -> None:
    client = make_client(nerkh)
    pair = client.get_rates(symbols=["BTC", "ETH"])
    assert client.get_rates().data.count == 4  # the full list is not the pair's cached answer
    assert client.get_rates(symbols=["BTC", "ETH"]).source == "cache"
    nerkh.advance(540)
    again = client.get_rates(symbols=["BTC", "ETH"])
    assert again.source == "revalidated"
    assert again.data == pair.data
    assert [answer["status"] for answer in nerkh.answers()] == [200, 200, 304]


def test_names_a_malformed_an_unknown_or_one_symbol_too_many_with_the_services_codes(
    nerkh: Nerkh, make_client: MakeClient
) -> None:
    client = make_client(nerkh, cache=False)
    with pytest.raises(NerkhProblemError) as malformed:
        client.get_rates(symbols=["BTC", "no-such!"])
    assert (malformed.value.status, malformed.value.code) == (400, "invalid-symbol")
    with pytest.raises(NerkhProblemError) as unknown:
        client.get_rates(symbols=["BTC", "DOGE"])
    assert (unknown.value.status, unknown.value.code) == (404, "unknown-symbol")
    assert "DOGE" in unknown.value.detail
    assert unknown.value.problem["unknown-symbols"] == ["DOGE"]
    with pytest.raises(NerkhProblemError) as too_many:
        client.get_rates(symbols=[f"C{number}" for number in range(21)])
    assert (too_many.value.status, too_many.value.code) == (400, "invalid-symbol")
    assert "20" in too_many.value.detail
    with pytest.raises(ValueError, match="not both"):
        client.get_rates(symbol="BTC", symbols=["ETH"])

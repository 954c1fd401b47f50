"""The parts that need no server: the answer's models, the RateLimit fields, the budget, the
freshness helpers (their use against a real nerkh is in test_client.py)."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any, Dict, Set

import httpx
import pytest

from nerkh_client import RateLimitInfo, RateRow, RatesResponse, is_stale, parse_rate_limit_fields, row_age_seconds
from nerkh_client._budget import RequestBudget
from nerkh_client._core import max_age_seconds, rates_path, retry_after_seconds

ROW: Dict[str, Any] = {
    "symbol": "BTC",
    "name_fa": "بیت‌کوین",
    "sell_usdt": 67321.45,
    "sell_irt": 4123438813,
    "change_24h": 1.84,
    "as_of": "2025-06-01T10:19:42.118Z",
    "url": "https://rates.example.ir/coins/BTC",
}


def test_a_row_from_an_older_server_has_no_source_and_one_from_a_newer_server_has_both() -> None:
    older = RateRow.from_json(ROW)
    assert (older.source, older.tether_source) == (None, None)
    newer = RateRow.from_json({**ROW, "source": "nobitex", "tether_source": "wallex", "future_field": 1})
    assert (newer.source, newer.tether_source) == ("nobitex", "wallex")
    unconverted = RateRow.from_json({**ROW, "source": "binance", "tether_source": None})
    assert (unconverted.source, unconverted.tether_source) == ("binance", None)


def test_a_rates_response_reads_the_openapi_example_with_nulls_and_integers_as_floats() -> None:
    body = {
        "source": "binance+nobitex",
        "side": "sell",
        "usdt_irt": None,
        "updated_at": "2025-06-01T10:20:00.000Z",
        "disclaimer": "Rates are informational only.",
        "count": 1,
        "rates": [{**ROW, "sell_usdt": 1, "sell_irt": None, "change_24h": None}],
    }
    response = RatesResponse.from_json(body)
    assert response.usdt_irt is None
    assert response.rates[0].sell_usdt == 1.0 and isinstance(response.rates[0].sell_usdt, float)
    assert (response.rates[0].sell_irt, response.rates[0].change_24h) == (None, None)
    assert response.raw is body


def test_reads_every_policy_of_the_lists_with_unknown_parameters_ignored() -> None:
    headers = httpx.Headers(
        {"RateLimit-Policy": '"default";q=60;w=60, "burst";q=10;w=1;pk=:abc=:', "RateLimit": '"default";r=12;t=7'}
    )
    info = parse_rate_limit_fields(headers)
    assert info is not None
    assert [(p.name, p.quota, p.window) for p in info.policies] == [("default", 60, 60), ("burst", 10, 1)]
    assert [(s.name, s.remaining, s.reset) for s in info.limits] == [("default", 12, 7)]


def test_is_none_without_the_fields_and_drops_members_it_cannot_read() -> None:
    assert parse_rate_limit_fields(httpx.Headers()) is None
    assert parse_rate_limit_fields(httpx.Headers({"RateLimit": '"default";r=x;t=7, ;'})) == RateLimitInfo((), ())


def test_the_budget_keeps_reserve_requests_of_each_window_unused() -> None:
    budget = RequestBudget(reserve=2)

    def info(remaining: int) -> RateLimitInfo:
        parsed = parse_rate_limit_fields(
            {"ratelimit-policy": '"default";q=60;w=60', "ratelimit": f'"default";r={remaining};t=30'}
        )
        assert parsed is not None
        return parsed

    budget.record_counted(info(3), 0)
    assert budget.wait_seconds(0) == 0
    budget.record_counted(info(2), 1)
    assert budget.wait_seconds(1) == 30
    assert budget.wait_seconds(31) == 0


def test_cache_control_and_retry_after_are_read_as_the_typescript_client_reads_them() -> None:
    assert max_age_seconds("public, max-age=540, stale-while-revalidate=30") == 540
    assert max_age_seconds("no-store") == 0
    assert max_age_seconds("max-age=60, no-cache") == 0
    assert max_age_seconds(None) == 0
    assert retry_after_seconds("60", 0) == 60
    now = datetime(2025, 1, 1, 12, 0, tzinfo=timezone.utc).timestamp()
    assert retry_after_seconds("Wed, 01 Jan 2025 12:00:30 GMT", now) == 30
    assert retry_after_seconds("soon", now) is None


def test_symbols_go_in_one_comma_separated_parameter_and_symbol_and_symbols_exclude_each_other() -> None:
    assert rates_path(None, None) == "/rates"
    assert rates_path("btc", None) == "/rates?symbol=btc"
    assert rates_path(None, ["BTC", "eth"]) == "/rates?symbols=BTC,eth"
    assert rates_path(None, "BTC") == "/rates?symbols=BTC"
    assert rates_path(None, ("a&b",)) == "/rates?symbols=a%26b"
    with pytest.raises(ValueError, match="not both"):
        rates_path("BTC", ["ETH"])
    with pytest.raises(ValueError, match="empty"):
        rates_path(None, [])
    with pytest.raises(ValueError, match="comma"):
        rates_path(None, "BTC,ETH")


def test_freshness_takes_a_datetime_or_epoch_seconds_and_calls_an_unreadable_as_of_stale() -> None:
    row = RateRow.from_json(ROW)
    at = datetime(2025, 6, 1, 10, 29, 42, 118000, tzinfo=timezone.utc)
    assert row_age_seconds(row, at) == pytest.approx(600)
    assert row_age_seconds(row, at.timestamp()) == pytest.approx(600)
    assert not is_stale(row, 600, at) and is_stale(row, 599, at)
    assert row_age_seconds(row, datetime(2020, 1, 1, tzinfo=timezone.utc)) == 0  # never negative
    unreadable = RateRow.from_json({**ROW, "as_of": "yesterday"})
    assert math.isnan(row_age_seconds(unreadable)) and is_stale(unreadable, 10**9)


def test_the_models_name_every_field_of_the_services_openapi_description() -> None:
    """The models are written by hand: this catches a field the service adds or renames (the
    OpenAPI copy in packages/client is regenerated and checked for drift by the nerkh suite)."""
    import dataclasses
    import json

    from nerkh_client import HealthCheck, HealthResponse

    from .conftest import REPO_DIR

    openapi = json.loads((REPO_DIR / "packages" / "client" / "src" / "generated" / "openapi.json").read_text())
    rates = openapi["paths"]["/rates"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    health = openapi["paths"]["/health"]["get"]["responses"]["200"]["content"]["application/health+json"]["schema"]
    check = health["properties"]["checks"]["additionalProperties"]["items"]
    wire = {"release_id": "releaseId", "service_id": "serviceId", "component_type": "componentType"}
    wire.update({"observed_value": "observedValue", "observed_unit": "observedUnit"})

    def names(model: Any) -> Set[str]:
        return {wire.get(f.name, f.name) for f in dataclasses.fields(model) if f.name != "raw"}

    # The rows' source and tether_source are read before every server sends them.
    row = set(rates["properties"]["rates"]["items"]["properties"])
    assert row | {"source", "tether_source"} == names(RateRow)
    assert set(rates["properties"]) == names(RatesResponse)
    assert set(health["properties"]) == names(HealthResponse)
    assert set(check["properties"]) == names(HealthCheck)

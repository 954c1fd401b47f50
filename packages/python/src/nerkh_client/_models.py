"""Typed answers, after the service's OpenAPI description (``/v1/openapi.json``).

Frozen dataclasses with the wire's field names (snake_case already, but for the health report's
camelCase ones). Fields a newer server adds are ignored, and the fields added after the first
release are optional, so the client reads older and newer servers alike; ``raw`` keeps the
decoded JSON as it came.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Generic, Literal, Mapping, Optional, Tuple, TypeVar, Union

from ._rate_limit import RateLimitInfo

HealthStatus = Literal["pass", "warn", "fail"]


def _optional_int(value: Any) -> Optional[int]:
    return None if value is None else int(value)


def _optional_float(value: Any) -> Optional[float]:
    return None if value is None else float(value)


def _optional_str(value: Any) -> Optional[str]:
    return None if value is None else str(value)


@dataclass(frozen=True)
class RateRow:
    """One currency's sell rate. Judge its freshness by its own ``as_of``, never ``updated_at``."""

    symbol: str
    name_fa: str
    sell_usdt: float
    """Sell rate in tether (USDT)."""
    sell_irt: Optional[int]
    """Sell rate in toman (not rial); None when the tether rate is unknown."""
    change_24h: Optional[float]
    as_of: str
    """RFC 3339 time of this currency's last price move (``row_age_seconds``, ``is_stale``)."""
    url: str
    source: Optional[str] = None
    """The source that priced the row; None from servers older than the field."""
    tether_source: Optional[str] = None
    """The source of the tether rate used to convert one of the row's prices; None when none."""

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> RateRow:
        return cls(
            symbol=str(row["symbol"]),
            name_fa=str(row["name_fa"]),
            sell_usdt=float(row["sell_usdt"]),
            sell_irt=_optional_int(row.get("sell_irt")),
            change_24h=_optional_float(row.get("change_24h")),
            as_of=str(row["as_of"]),
            url=str(row["url"]),
            source=_optional_str(row.get("source")),
            tether_source=_optional_str(row.get("tether_source")),
        )


@dataclass(frozen=True)
class RatesResponse:
    """``GET /v1/rates``: the last committed snapshot's sell rates, sorted by symbol."""

    source: str
    side: Literal["sell"]
    usdt_irt: Optional[int]
    """Sell rate of tether in toman."""
    updated_at: str
    """When the whole list was committed: not the time of any row."""
    disclaimer: str
    count: int
    rates: Tuple[RateRow, ...]
    raw: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> RatesResponse:
        return cls(
            source=str(body["source"]),
            side="sell",
            usdt_irt=_optional_int(body.get("usdt_irt")),
            updated_at=str(body["updated_at"]),
            disclaimer=str(body["disclaimer"]),
            count=int(body["count"]),
            rates=tuple(RateRow.from_json(row) for row in body["rates"]),
            raw=body,
        )


@dataclass(frozen=True)
class HealthCheck:
    """One check of the health report (draft-inadarei-api-health-check)."""

    component_type: str
    status: HealthStatus
    time: Optional[str]
    observed_value: Union[float, str, None]
    output: str
    observed_unit: Optional[str] = None
    coins: Optional[int] = None
    """A source's check: rows of the rates it prices now."""

    @classmethod
    def from_json(cls, check: Mapping[str, Any]) -> HealthCheck:
        observed = check.get("observedValue")
        return cls(
            component_type=str(check["componentType"]),
            status=check["status"],
            time=_optional_str(check.get("time")),
            observed_value=observed if isinstance(observed, (str, int, float)) else None,
            output=str(check.get("output", "")),
            observed_unit=_optional_str(check.get("observedUnit")),
            coins=_optional_int(check.get("coins")),
        )


@dataclass(frozen=True)
class HealthResponse:
    """``GET /v1/health``, on 200 and on 503 alike."""

    status: HealthStatus
    version: str
    release_id: str
    service_id: str
    description: str
    updated_at: Optional[str]
    """Commit time of the served snapshot."""
    age_seconds: Optional[int]
    next_refresh_at: Optional[str]
    count: Optional[int]
    checks: Mapping[str, Tuple[HealthCheck, ...]]
    output: Optional[str] = None
    raw: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> HealthResponse:
        checks: Dict[str, Tuple[HealthCheck, ...]] = {
            name: tuple(HealthCheck.from_json(check) for check in entries)
            for name, entries in dict(body.get("checks") or {}).items()
        }
        return cls(
            status=body["status"],
            version=str(body["version"]),
            release_id=str(body["releaseId"]),
            service_id=str(body["serviceId"]),
            description=str(body["description"]),
            updated_at=_optional_str(body.get("updated_at")),
            age_seconds=_optional_int(body.get("age_seconds")),
            next_refresh_at=_optional_str(body.get("next_refresh_at")),
            count=_optional_int(body.get("count")),
            checks=checks,
            output=_optional_str(body.get("output")),
            raw=body,
        )


T = TypeVar("T")
ResultSource = Literal["network", "revalidated", "cache"]


@dataclass(frozen=True)
class NerkhResult(Generic[T]):
    """An answer and where it came from."""

    data: T
    status: int
    """HTTP status of the answer the data came from (200; ``/v1/health`` also 503)."""
    source: ResultSource
    """``network``: a new body; ``revalidated``: a 304 reused the cached body; ``cache``: within max-age, no request."""
    rate_limit: Optional[RateLimitInfo]
    """The RateLimit fields of the answer (keyed requests), or None."""

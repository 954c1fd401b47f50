"""What the sync and the async client share: everything but the I/O and the waiting.

A request is planned (``plan``: an answer from the cache, a wait for the budget, or a request to
send) and its answer interpreted (``interpret``); ``NerkhClient`` and ``AsyncNerkhClient`` only
send the request and sleep, so the two cannot drift apart in behaviour. It follows the
TypeScript client (packages/client/src/client.ts) step for step.
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass, replace
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, TypeVar, Union
from urllib.parse import quote

from ._base_url import api_base_url
from ._budget import RequestBudget
from ._errors import NerkhProblemError, NerkhRequestError
from ._models import NerkhResult
from ._rate_limit import RateLimitInfo, parse_rate_limit_fields

T = TypeVar("T")

_PROBLEM_TYPE = "application/problem+json"
_NO_STORE = re.compile(r"(^|,)\s*(no-store|no-cache)\s*(,|$)", re.IGNORECASE)
_MAX_AGE = re.compile(r'(?:^|,)\s*max-age\s*=\s*"?(\d+)"?', re.IGNORECASE)
_DIGITS = re.compile(r"^\d+$")


@dataclass(frozen=True)
class RetryOptions:
    """Bounded retry after a 429 (or a local budget refusal), honouring ``Retry-After``.

    ``attempts`` retries per call, each only when the wait is at most ``max_wait_seconds``;
    401 and 403 are never retried.
    """

    attempts: int
    max_wait_seconds: float = 60


@dataclass(frozen=True)
class _CacheEntry:
    etag: Optional[str]
    fresh_until: float
    status: int
    data: Any
    rate_limit: Optional[RateLimitInfo]


@dataclass(frozen=True)
class _Send:
    """A request to send: ``url``, ``headers``, and the cache entry it may revalidate."""

    path: str
    url: str
    headers: Dict[str, str]
    keyed: bool
    cached: Optional[_CacheEntry]


@dataclass(frozen=True)
class _Wait:
    """The budget says the next keyed request fits the quota only in ``seconds``."""

    seconds: int


def max_age_seconds(field: Optional[str]) -> int:
    """``max-age`` of a Cache-Control field in seconds; 0 for no-store, no-cache or none."""
    if field is None or _NO_STORE.search(field):
        return 0
    match = _MAX_AGE.search(field)
    return int(match.group(1)) if match else 0


def retry_after_seconds(field: Optional[str], now: float) -> Optional[int]:
    """``Retry-After`` (delay-seconds or an HTTP-date) in seconds, or None."""
    if field is None:
        return None
    if _DIGITS.match(field.strip()):
        return int(field.strip())
    try:
        date = parsedate_to_datetime(field)
    except (TypeError, ValueError):
        return None
    return max(0, math.ceil(date.timestamp() - now))


def rates_path(symbol: Optional[str], symbols: Union[str, Iterable[str], None]) -> str:
    if symbol is not None and symbols is not None:
        raise ValueError("pass symbol or symbols, not both")
    if symbol is not None:
        return f"/rates?symbol={quote(symbol, safe='')}"
    if symbols is None:
        return "/rates"
    listed = [symbols] if isinstance(symbols, str) else list(symbols)
    if not listed:
        raise ValueError("symbols is empty: pass at least one symbol, or none for every currency")
    # The service splits the list on commas after decoding %2C: an item holding a comma would
    # silently become two. Any other malformed item is the service's 400 to name.
    if any("," in item for item in listed):
        raise ValueError("a symbol cannot hold a comma: pass each symbol as an item of symbols")
    # Commas stay literal, as the API documents `?symbols=BTC,ETH`; the service checks each symbol.
    return "/rates?symbols=" + ",".join(quote(item, safe="") for item in listed)


class ClientCore:
    def __init__(
        self,
        *,
        base_url: str,
        api_key: Optional[str],
        timeout: float,
        retry: Optional[RetryOptions],
        budget: bool,
        budget_reserve: int,
        cache: bool,
        clock: Callable[[], float],
    ) -> None:
        self.base = api_base_url(base_url, api_key)
        self._api_key = api_key or None
        self.timeout = timeout
        self.retry = retry
        self._budget = RequestBudget(budget_reserve) if budget else None
        self._cache: Optional[Dict[str, _CacheEntry]] = {} if cache else None
        self.clock = clock
        self.rate_limit: Optional[RateLimitInfo] = None

    @property
    def has_key(self) -> bool:
        return self._api_key is not None

    def retries(self) -> int:
        return max(0, int(self.retry.attempts)) if self.retry else 0

    def require_key(self, keyed: bool) -> None:
        if keyed and self._api_key is None:
            raise ValueError("api_key is required for /v1/rates; request a key through the service's contact page")

    def may_retry(self, retries_left: int, wait_seconds: float) -> bool:
        return self.retry is not None and retries_left > 0 and wait_seconds <= self.retry.max_wait_seconds

    def plan(self, path: str, keyed: bool) -> Union[NerkhResult[Any], _Wait, _Send]:
        cached = self._cache.get(path) if self._cache is not None else None
        if cached is not None and self.clock() < cached.fresh_until:
            return NerkhResult(cached.data, cached.status, "cache", cached.rate_limit)
        if keyed and self._budget is not None:
            wait = self._budget.wait_seconds(self.clock())
            if wait > 0:
                return _Wait(wait)
        headers: Dict[str, str] = {}
        if keyed and self._api_key is not None:
            headers["X-API-Key"] = self._api_key
        if cached is not None and cached.etag is not None:
            headers["If-None-Match"] = cached.etag
        return _Send(path, f"{self.base}{path}", headers, keyed, cached)

    def interpret(
        self,
        send: _Send,
        status: int,
        headers: Mapping[str, str],
        content: bytes,
        parse: Callable[[Mapping[str, Any]], T],
    ) -> NerkhResult[T]:
        now = self.clock()
        rate_limit = parse_rate_limit_fields(headers)
        if send.keyed:
            if rate_limit is not None:
                self.rate_limit = rate_limit
            if self._budget is not None:
                if status == 429:
                    self._budget.record_refused(rate_limit, retry_after_seconds(headers.get("retry-after"), now), now)
                elif rate_limit is not None:
                    self._budget.record_counted(rate_limit, now)
        fresh_until = now + max_age_seconds(headers.get("cache-control"))
        if status == 304 and send.cached is not None:
            entry = replace(send.cached, fresh_until=fresh_until, rate_limit=rate_limit)
            if self._cache is not None:
                self._cache[send.path] = entry
            data: T = entry.data
            return NerkhResult(data, entry.status, "revalidated", rate_limit)
        content_type = headers.get("content-type", "")
        try:
            body = json.loads(content)
        except ValueError:
            raise NerkhRequestError(
                "unexpected-response", f"{self.base}{send.path} answered {status} without a JSON body", status
            ) from None
        ok = 200 <= status < 300
        if content_type.startswith(_PROBLEM_TYPE) or (not ok and not (status == 503 and send.path == "/health")):
            raise self._problem_error(status, headers, body, now)
        if not isinstance(body, dict):
            raise NerkhRequestError("unexpected-response", f"{self.base}{send.path} answered {status} with no object", status)
        try:
            parsed = parse(body)
        except (KeyError, TypeError, ValueError):
            raise NerkhRequestError(
                "unexpected-response", f"{self.base}{send.path} answered {status} with an unexpected body", status
            ) from None
        etag = headers.get("etag")
        if self._cache is not None and (etag is not None or fresh_until > now):
            self._cache[send.path] = _CacheEntry(etag, fresh_until, status, parsed, rate_limit)
        return NerkhResult(parsed, status, "network", rate_limit)

    def _problem_error(self, status: int, headers: Mapping[str, str], body: Any, now: float) -> Exception:
        if not isinstance(body, dict) or not isinstance(body.get("code"), str):
            return NerkhRequestError(
                "unexpected-response", f"{self.base} answered {status} without a problem document", status
            )
        return NerkhProblemError(body, status, retry_after_seconds(headers.get("retry-after"), now))

    def timeout_error(self, send: _Send) -> NerkhRequestError:
        return NerkhRequestError("timeout", f"no answer from {send.url} within {self.timeout:g} s")

    def network_error(self, send: _Send, error: Exception) -> NerkhRequestError:
        # The exception's class, not its text: the text is the platform's, and this one is ours.
        return NerkhRequestError("network", f"request to {send.url} failed ({type(error).__name__})")


def default_clock() -> float:
    return time.time()

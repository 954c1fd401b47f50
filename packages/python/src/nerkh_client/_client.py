"""``NerkhClient`` (blocking) and ``AsyncNerkhClient`` (asyncio), on httpx.

Both plan and interpret each request through one ``ClientCore``; they differ only in how they
send it and how they wait, so their behaviour is the same by construction.
"""

from __future__ import annotations

import asyncio
import time
from types import TracebackType
from typing import Any, Awaitable, Callable, Iterable, Mapping, Optional, Type, TypeVar, Union

import httpx

from ._core import ClientCore, RetryOptions, _Send, _Wait, default_clock, rates_path
from ._errors import NerkhBudgetError, NerkhProblemError, NerkhRequestError
from ._models import HealthResponse, NerkhResult, RatesResponse
from ._rate_limit import RateLimitInfo
from ._version import __version__

T = TypeVar("T")
_USER_AGENT = f"nerkh-client-python/{__version__} httpx/{httpx.__version__}"
Symbols = Union[str, Iterable[str], None]


def _health(body: Mapping[str, Any]) -> HealthResponse:
    return HealthResponse.from_json(body)


def _rates(body: Mapping[str, Any]) -> RatesResponse:
    return RatesResponse.from_json(body)


class _Common:
    _core: ClientCore

    @property
    def base_url(self) -> str:
        """The service's ``/v1`` base the client calls."""
        return self._core.base

    @property
    def rate_limit(self) -> Optional[RateLimitInfo]:
        """The RateLimit and RateLimit-Policy fields of the last keyed answer, parsed."""
        return self._core.rate_limit

    def __repr__(self) -> str:
        # The key is a secret: a repr ends up in logs and tracebacks, so it says only whether one is set.
        key = "'***'" if self._core.has_key else "None"
        return f"{type(self).__name__}(base_url={self._core.base!r}, api_key={key})"


class NerkhClient(_Common):
    """A blocking client of the nerkh rates API (README.md of this package).

    ``base_url`` is the service (``https://rates.example`` or ``https://rates.example/v1``);
    ``api_key`` is sent only in ``X-API-Key``. Use it as a context manager, or ``close()`` it.
    """

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str] = None,
        *,
        timeout: float = 10.0,
        retry: Optional[RetryOptions] = None,
        budget: bool = True,
        budget_reserve: int = 0,
        cache: bool = True,
        http_client: Optional[httpx.Client] = None,
        clock: Callable[[], float] = default_clock,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._core = ClientCore(
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            retry=retry,
            budget=budget,
            budget_reserve=budget_reserve,
            cache=cache,
            clock=clock,
        )
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.Client(headers={"User-Agent": _USER_AGENT})
        self._sleep = sleep

    def get_rates(self, symbol: Optional[str] = None, symbols: Symbols = None) -> NerkhResult[RatesResponse]:
        """Sell rates of every listed currency, of one (``symbol``), or of several (``symbols``).

        Symbols are case-insensitive; with ``symbols`` the rows come sorted by symbol, each once.
        """
        return self._call(rates_path(symbol, symbols), True, _rates)

    def get_health(self) -> NerkhResult[HealthResponse]:
        """Freshness of the data and state of the sources; a failing service (503) is a result."""
        return self._call("/health", False, _health)

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> NerkhClient:
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()

    def _call(self, path: str, keyed: bool, parse: Callable[[Mapping[str, Any]], T]) -> NerkhResult[T]:
        core = self._core
        core.require_key(keyed)
        retries_left = core.retries()
        while True:
            step = core.plan(path, keyed)
            if isinstance(step, NerkhResult):
                cached: NerkhResult[T] = step
                return cached
            if isinstance(step, _Wait):
                if not core.may_retry(retries_left, step.seconds):
                    raise NerkhBudgetError(step.seconds)
                retries_left -= 1
                self._sleep(step.seconds)
                continue
            try:
                return self._send(step, parse)
            except NerkhProblemError as error:
                wait = 1 if error.retry_after is None else error.retry_after
                if error.status != 429 or not core.may_retry(retries_left, wait):
                    raise
                retries_left -= 1
                self._sleep(wait)

    def _send(self, send: _Send, parse: Callable[[Mapping[str, Any]], T]) -> NerkhResult[T]:
        try:
            response = self._http.get(send.url, headers=send.headers, timeout=self._core.timeout)
        except httpx.TimeoutException:
            raise self._core.timeout_error(send) from None
        except httpx.TransportError as error:
            raise self._core.network_error(send, error) from error
        except httpx.DecodingError:
            raise NerkhRequestError("unexpected-response", f"{send.url} answered an undecodable body") from None
        return self._core.interpret(send, response.status_code, response.headers, response.content, parse)


class AsyncNerkhClient(_Common):
    """The asyncio twin of ``NerkhClient``: the same options, awaitable calls.

    Use it as an async context manager, or ``await aclose()``. A call is cancelled the asyncio
    way, by cancelling its task (``asyncio.wait_for``, ``asyncio.timeout``).
    """

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str] = None,
        *,
        timeout: float = 10.0,
        retry: Optional[RetryOptions] = None,
        budget: bool = True,
        budget_reserve: int = 0,
        cache: bool = True,
        http_client: Optional[httpx.AsyncClient] = None,
        clock: Callable[[], float] = default_clock,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._core = ClientCore(
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            retry=retry,
            budget=budget,
            budget_reserve=budget_reserve,
            cache=cache,
            clock=clock,
        )
        self._owns_http = http_client is None
        self._http = (
            http_client if http_client is not None else httpx.AsyncClient(headers={"User-Agent": _USER_AGENT})
        )
        self._sleep = sleep

    async def get_rates(self, symbol: Optional[str] = None, symbols: Symbols = None) -> NerkhResult[RatesResponse]:
        """Sell rates of every listed currency, of one (``symbol``), or of several (``symbols``)."""
        return await self._call(rates_path(symbol, symbols), True, _rates)

    async def get_health(self) -> NerkhResult[HealthResponse]:
        """Freshness of the data and state of the sources; a failing service (503) is a result."""
        return await self._call("/health", False, _health)

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncNerkhClient:
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        await self.aclose()

    async def _call(self, path: str, keyed: bool, parse: Callable[[Mapping[str, Any]], T]) -> NerkhResult[T]:
        core = self._core
        core.require_key(keyed)
        retries_left = core.retries()
        while True:
            step = core.plan(path, keyed)
            if isinstance(step, NerkhResult):
                cached: NerkhResult[T] = step
                return cached
            if isinstance(step, _Wait):
                if not core.may_retry(retries_left, step.seconds):
                    raise NerkhBudgetError(step.seconds)
                retries_left -= 1
                await self._sleep(step.seconds)
                continue
            try:
                return await self._send(step, parse)
            except NerkhProblemError as error:
                wait = 1 if error.retry_after is None else error.retry_after
                if error.status != 429 or not core.may_retry(retries_left, wait):
                    raise
                retries_left -= 1
                await self._sleep(wait)

    async def _send(self, send: _Send, parse: Callable[[Mapping[str, Any]], T]) -> NerkhResult[T]:
        try:
            response = await self._http.get(send.url, headers=send.headers, timeout=self._core.timeout)
        except httpx.TimeoutException:
            raise self._core.timeout_error(send) from None
        except httpx.TransportError as error:
            raise self._core.network_error(send, error) from error
        except httpx.DecodingError:
            raise NerkhRequestError("unexpected-response", f"{send.url} answered an undecodable body") from None
        return self._core.interpret(send, response.status_code, response.headers, response.content, parse)

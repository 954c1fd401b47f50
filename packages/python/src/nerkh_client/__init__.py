"""A typed client of the nerkh rates API: an exchange's current sell rates of digital
currencies in tether (USDT) and in toman. See README.md of the package."""

from ._client import AsyncNerkhClient, NerkhClient
from ._core import RetryOptions
from ._errors import NerkhBudgetError, NerkhError, NerkhProblemError, NerkhRequestError
from ._freshness import is_stale, parse_timestamp, row_age_seconds
from ._models import HealthCheck, HealthResponse, NerkhResult, RateRow, RatesResponse
from ._rate_limit import RateLimitInfo, RateLimitPolicy, RateLimitState, parse_rate_limit_fields
from ._version import __version__

__all__ = [
    "AsyncNerkhClient",
    "HealthCheck",
    "HealthResponse",
    "NerkhBudgetError",
    "NerkhClient",
    "NerkhError",
    "NerkhProblemError",
    "NerkhRequestError",
    "NerkhResult",
    "RateLimitInfo",
    "RateLimitPolicy",
    "RateLimitState",
    "RateRow",
    "RatesResponse",
    "RetryOptions",
    "__version__",
    "is_stale",
    "parse_rate_limit_fields",
    "parse_timestamp",
    "row_age_seconds",
]

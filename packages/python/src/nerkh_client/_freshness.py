"""A row's freshness comes from its own ``as_of``: when that currency's price last moved.

The response's ``updated_at`` is only when the whole list was committed (every 10 minutes); a
row can be hours older than that, so ``updated_at`` is never a row's time.
"""

from __future__ import annotations

import math
import time
from datetime import datetime, timezone
from typing import Optional, Protocol, Union

Now = Union[datetime, float, None]
"""An aware datetime, epoch seconds, or None for the current time."""


class HasAsOf(Protocol):
    @property
    def as_of(self) -> str: ...


def parse_timestamp(value: str) -> Optional[datetime]:
    """An RFC 3339 timestamp as an aware datetime, or None when unreadable.

    ``datetime.fromisoformat`` reads a ``Z`` suffix only from Python 3.11 on.
    """
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)


def _epoch_seconds(now: Now) -> float:
    if now is None:
        return time.time()
    if isinstance(now, datetime):
        return (now if now.tzinfo is not None else now.replace(tzinfo=timezone.utc)).timestamp()
    return float(now)


def row_age_seconds(row: HasAsOf, now: Now = None) -> float:
    """Seconds since the row's price last moved (``as_of``), never negative; NaN when unreadable."""
    as_of = parse_timestamp(row.as_of)
    if as_of is None:
        return math.nan
    return max(0.0, _epoch_seconds(now) - as_of.timestamp())


def is_stale(row: HasAsOf, max_age_seconds: float, now: Now = None) -> bool:
    """True when the row's ``as_of`` is more than ``max_age_seconds`` old (or unreadable)."""
    age = row_age_seconds(row, now)
    return math.isnan(age) or age > max_age_seconds

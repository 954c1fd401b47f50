"""The client-side request budget (the TypeScript client's ``RequestBudget``).

It keeps a client under its key's quota before the service refuses it. It knows what the last
response's RateLimit fields said (``r`` left, a slot frees in ``t`` s) and counts this client's
own counted requests over the policy's rolling window (``q`` per ``w`` s); a request either view
says would be refused waits, or fails locally. Refused requests (429) never count on the
service, so they are not counted here either.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Deque, Optional

from ._rate_limit import RateLimitInfo


class RequestBudget:
    def __init__(self, reserve: int = 0) -> None:
        self._reserve = max(0, int(reserve))
        self._quota: Optional[int] = None
        self._window: Optional[float] = None
        self._remaining: Optional[int] = None
        self._slot_frees_at = 0.0
        self._sent_at: Deque[float] = deque()

    def wait_seconds(self, now: float) -> int:
        """Whole seconds to wait before the next keyed request fits the quota; 0 when it fits now."""
        until = 0.0
        if self._remaining is not None and self._remaining <= self._reserve and now < self._slot_frees_at:
            until = self._slot_frees_at
        if self._quota is not None and self._window is not None:
            while self._sent_at and self._sent_at[0] <= now - self._window:
                self._sent_at.popleft()
            allowed = max(0, self._quota - self._reserve)
            if len(self._sent_at) >= allowed:
                oldest_counted = self._sent_at[len(self._sent_at) - allowed] if allowed > 0 else now
                until = max(until, oldest_counted + self._window)
        return math.ceil(until - now) if until > now else 0

    def record_counted(self, info: Optional[RateLimitInfo], now: float) -> None:
        """A response the limiter counted (anything but a 429), with its RateLimit fields."""
        self._sent_at.append(now)
        self._learn(info, now)

    def record_refused(self, info: Optional[RateLimitInfo], retry_after: Optional[int], now: float) -> None:
        """A 429: the service counted nothing and admits nothing for ``retry_after`` seconds."""
        self._learn(info, now)
        self._remaining = 0
        self._slot_frees_at = max(self._slot_frees_at, now + (1 if retry_after is None else retry_after))

    def _learn(self, info: Optional[RateLimitInfo], now: float) -> None:
        if info is None:
            return
        if info.policies:
            self._quota = info.policies[0].quota
            self._window = float(info.policies[0].window)
        if info.limits:
            self._remaining = info.limits[0].remaining
            self._slot_frees_at = now + info.limits[0].reset

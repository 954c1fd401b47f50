"""What the client raises on purpose. None of these texts ever contains the API key."""

from __future__ import annotations

from typing import Any, Literal, Mapping, Optional


class NerkhError(Exception):
    """Base class of everything the client raises on purpose."""


class NerkhProblemError(NerkhError):
    """The service answered with an RFC 9457 problem document.

    Switch on ``code`` (the service's stable error codes, e.g. ``rate-limited``,
    ``invalid-api-key``, ``unknown-symbol``); ``retry_after`` is the ``Retry-After`` field in
    seconds (429 and 503), None when the answer had none.
    """

    def __init__(self, problem: Mapping[str, Any], status: int, retry_after: Optional[int]) -> None:
        self.problem: Mapping[str, Any] = problem
        self.status = status
        self.code: str = str(problem["code"])
        self.detail: str = str(problem.get("detail", ""))
        self.retry_after = retry_after
        super().__init__(f"{status} {self.code}: {self.detail}")

    def __repr__(self) -> str:
        return (
            f"NerkhProblemError(status={self.status}, code={self.code!r}, "
            f"detail={self.detail!r}, retry_after={self.retry_after!r})"
        )


class NerkhBudgetError(NerkhError):
    """Refused by the client's own budget before any request was sent.

    The key's quota, as the service last reported it, has no request left; ``retry_after`` is
    when a slot frees, in seconds.
    """

    code: Literal["budget-exhausted"] = "budget-exhausted"

    def __init__(self, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(f"the key's rate-limit budget is used up; a request slot frees in {retry_after} s")


RequestErrorCode = Literal["timeout", "network", "unexpected-response"]


class NerkhRequestError(NerkhError):
    """No usable answer: the request timed out, the network failed, or the answer was not the API's."""

    def __init__(self, code: RequestErrorCode, message: str, status: Optional[int] = None) -> None:
        self.code: RequestErrorCode = code
        self.status = status
        super().__init__(message)

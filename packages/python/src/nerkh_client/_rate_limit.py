"""The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers).

``RateLimit: "default";r=59;t=60`` and ``RateLimit-Policy: "default";q=60;w=60`` are
Structured Field lists (RFC 9651) of quoted policy names with integer parameters. Parsed by
hand, as the TypeScript client does: only this small subset of the syntax is needed, and a
dependency for it would be the package's second.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple

_QUOTED = re.compile(r'^"([^"\\]*)"$')
_INTEGER = re.compile(r"^-?\d+$")


@dataclass(frozen=True)
class RateLimitPolicy:
    """One ``RateLimit-Policy`` member: ``quota`` requests per ``window`` seconds."""

    name: str
    quota: int
    window: int


@dataclass(frozen=True)
class RateLimitState:
    """One ``RateLimit`` member: ``remaining`` requests now; a slot frees in ``reset`` seconds."""

    name: str
    remaining: int
    reset: int


@dataclass(frozen=True)
class RateLimitInfo:
    """The parsed ``RateLimit`` and ``RateLimit-Policy`` fields of one answer."""

    policies: Tuple[RateLimitPolicy, ...]
    limits: Tuple[RateLimitState, ...]


def _parse_list(field: str) -> List[Tuple[str, Dict[str, int]]]:
    items: List[Tuple[str, Dict[str, int]]] = []
    for member in field.split(","):
        name_token, *param_tokens = member.strip().split(";")
        quoted = _QUOTED.match(name_token.strip())
        name = quoted.group(1) if quoted else name_token.strip()
        if name == "":
            continue
        params: Dict[str, int] = {}
        for token in param_tokens:
            key, _, value = token.strip().partition("=")
            if _INTEGER.match(value):
                params[key.strip()] = int(value)
        items.append((name, params))
    return items


def parse_rate_limit_fields(headers: Mapping[str, str]) -> Optional[RateLimitInfo]:
    """The fields of one response (case-insensitive ``headers``), or None when it had neither."""
    limit_field = headers.get("ratelimit")
    policy_field = headers.get("ratelimit-policy")
    if limit_field is None and policy_field is None:
        return None
    policies = tuple(
        RateLimitPolicy(name, params["q"], params["w"])
        for name, params in _parse_list(policy_field or "")
        if "q" in params and "w" in params
    )
    limits = tuple(
        RateLimitState(name, params["r"], params["t"])
        for name, params in _parse_list(limit_field or "")
        if "r" in params and "t" in params
    )
    return RateLimitInfo(policies=policies, limits=limits)

"""The service's ``/v1`` base from what the user configured.

Either the site's origin (``https://rates.example``) or its API base
(``https://rates.example/v1``). A key must travel only in ``X-API-Key``: a base URL with
credentials, a query string, a fragment, or something shaped like a nerkh key is refused,
because URLs end up in logs and proxies (as the service itself refuses ``?key=``).
"""

from __future__ import annotations

import re
from typing import Optional
from urllib.parse import unquote, urlsplit

_KEY_SHAPE = re.compile(r"nerkh_[A-Za-z0-9]{6,}")


def api_base_url(base_url: str, api_key: Optional[str]) -> str:
    try:
        url = urlsplit(base_url)
        port = url.port  # raises on a port that is not a number
    except ValueError:
        raise ValueError("base_url is not an absolute URL") from None
    if url.scheme not in ("http", "https"):
        raise ValueError(f"base_url must be http: or https:, not {url.scheme or 'relative'}")
    if not url.hostname:
        raise ValueError("base_url is not an absolute URL")
    decoded = unquote(base_url)
    carries_key = (
        url.username is not None
        or url.password is not None
        or url.query != ""
        or url.fragment != ""
        or base_url.endswith(("?", "#"))
        or _KEY_SHAPE.search(decoded) is not None
        or (bool(api_key) and api_key is not None and api_key in decoded)
    )
    if carries_key:
        # The text names no part of the URL: it may be the key itself.
        raise ValueError(
            "base_url must not carry a key, credentials, a query or a fragment: pass the key as "
            "api_key (it is sent only in X-API-Key). A key that was placed in a URL should be "
            "treated as exposed."
        )
    host = url.hostname if ":" not in url.hostname else f"[{url.hostname}]"
    origin = f"{url.scheme}://{host}" + (f":{port}" if port is not None else "")
    path = url.path.rstrip("/")
    return origin + (path if path.endswith("/v1") else f"{path}/v1")

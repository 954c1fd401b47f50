"""A real nerkh for every test, and the client under test in both flavours.

The nerkh is the one the TypeScript client's tests use (test/support/test-app.ts: in-memory
stores, the sample snapshot, an issued key, a fake clock the limiter and Cache-Control read),
started in the nerkh checkout this package lives in by test/support/nerkh-control.ts. Each test
starts its own and deletes it afterwards. The clients read the nerkh's fake clock, and their
``sleep`` advances it, so a 60-second Retry-After costs no time.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Protocol, Union

import httpx
import pytest

from nerkh_client import AsyncNerkhClient, HealthResponse, NerkhClient, NerkhResult, RateLimitInfo, RatesResponse

PACKAGE_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = PACKAGE_DIR.parent.parent
CONTROL_SCRIPT = REPO_DIR / "test" / "support" / "nerkh-control.ts"


@dataclass
class Nerkh:
    """One running nerkh and the handles a test needs on it."""

    control: httpx.Client
    id: str
    base_url: str
    key: str
    now_ms: int
    sleeps: List[float] = field(default_factory=list)

    def now(self) -> float:
        """The nerkh's fake clock, in epoch seconds (the clients' ``clock``)."""
        return self.now_ms / 1000

    def advance(self, seconds: float) -> None:
        answer = self.control.post(f"/nerkh/{self.id}/advance", json={"ms": round(seconds * 1000)})
        answer.raise_for_status()
        self.now_ms = int(answer.json()["nowMs"])

    def sleep(self, seconds: float) -> None:
        """What the clients wait with: it records the wait and moves the nerkh's clock by it."""
        self.sleeps.append(seconds)
        self.advance(seconds)

    async def async_sleep(self, seconds: float) -> None:
        self.sleep(seconds)

    def issue(self, rate_limit: Optional[int] = None) -> str:
        answer = self.control.post(f"/nerkh/{self.id}/keys", json={"rateLimit": rate_limit})
        answer.raise_for_status()
        return str(answer.json()["key"])

    def _log(self) -> Dict[str, Any]:
        answer = self.control.get(f"/nerkh/{self.id}/requests")
        answer.raise_for_status()
        log: Dict[str, Any] = answer.json()
        return log

    def requests(self) -> List[str]:
        """Paths with query of the requests that reached the nerkh's socket."""
        return [str(path) for path in self._log()["requests"]]

    def answers(self) -> List[Dict[str, Any]]:
        """Each answer's status, and whether its request carried If-None-Match."""
        return [dict(answer) for answer in self._log()["answers"]]


class Starter(Protocol):
    def __call__(self, snapshot: bool = True) -> Nerkh: ...


@pytest.fixture(scope="session")
def control() -> Iterator[httpx.Client]:
    node = shutil.which("node")
    if node is None or not CONTROL_SCRIPT.exists():
        pytest.skip(f"these tests need node and a nerkh checkout ({CONTROL_SCRIPT} is missing)")
    process = subprocess.Popen(
        [node, "--import", "tsx", str(CONTROL_SCRIPT)],
        cwd=REPO_DIR,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdin is not None
    line = process.stdout.readline()
    if not line:
        process.wait(timeout=10)
        raise RuntimeError(f"{CONTROL_SCRIPT} exited with {process.returncode} before it listened")
    client = httpx.Client(base_url=json.loads(line)["control"], timeout=30)
    try:
        yield client
    finally:
        client.close()
        # Closing its standard input is how the control server is told to stop (nerkh-control.ts).
        process.stdin.close()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def start_nerkh(control: httpx.Client) -> Iterator[Starter]:
    started: List[str] = []

    def start(snapshot: bool = True) -> Nerkh:
        answer = control.post("/nerkh", json={} if snapshot else {"snapshot": None})
        answer.raise_for_status()
        body = answer.json()
        started.append(str(body["id"]))
        return Nerkh(control, str(body["id"]), str(body["baseUrl"]), str(body["key"]), int(body["nowMs"]))

    yield start
    for nerkh_id in started:
        control.delete(f"/nerkh/{nerkh_id}").raise_for_status()


@pytest.fixture
def nerkh(start_nerkh: Starter) -> Nerkh:
    return start_nerkh()


class Client(Protocol):
    """What a behaviour test calls: ``NerkhClient`` as it is, or ``AsyncNerkhClient`` driven."""

    @property
    def rate_limit(self) -> Optional[RateLimitInfo]: ...

    def get_rates(
        self, symbol: Optional[str] = None, symbols: Union[str, List[str], None] = None
    ) -> NerkhResult[RatesResponse]: ...

    def get_health(self) -> NerkhResult[HealthResponse]: ...


class DrivenAsyncClient:
    """An ``AsyncNerkhClient`` whose calls run to completion on a loop of its own, so every
    behaviour test runs unchanged against both clients."""

    def __init__(self, client: AsyncNerkhClient, loop: asyncio.AbstractEventLoop) -> None:
        self.client = client
        self.loop = loop

    @property
    def rate_limit(self) -> Optional[RateLimitInfo]:
        return self.client.rate_limit

    def get_rates(
        self, symbol: Optional[str] = None, symbols: Union[str, List[str], None] = None
    ) -> NerkhResult[RatesResponse]:
        return self.loop.run_until_complete(self.client.get_rates(symbol=symbol, symbols=symbols))

    def get_health(self) -> NerkhResult[HealthResponse]:
        return self.loop.run_until_complete(self.client.get_health())


class MakeClient(Protocol):
    def __call__(self, nerkh: Nerkh, **options: Any) -> Client: ...


@pytest.fixture(params=["sync", "async"])
def make_client(request: pytest.FixtureRequest) -> Iterator[MakeClient]:
    """Clients on a running nerkh, with its clock and a sleep that advances it; closed after the test.

    ``api_key`` defaults to the nerkh's issued key; pass ``api_key=None`` for none.
    """
    flavour: str = request.param
    loop = asyncio.new_event_loop()
    closers: List[Any] = []

    def make(nerkh: Nerkh, **options: Any) -> Client:
        base_url = options.pop("base_url", nerkh.base_url)
        api_key = options.pop("api_key", nerkh.key)
        if flavour == "sync":
            client = NerkhClient(base_url, api_key, clock=nerkh.now, sleep=nerkh.sleep, **options)
            closers.append(client.close)
            return client
        async_client = AsyncNerkhClient(base_url, api_key, clock=nerkh.now, sleep=nerkh.async_sleep, **options)
        closers.append(lambda: loop.run_until_complete(async_client.aclose()))
        return DrivenAsyncClient(async_client, loop)

    try:
        yield make
    finally:
        for close in closers:
            close()
        loop.close()


def require_python() -> bool:
    """NERKH_REQUIRE_PYTHON=1 (CI) turns a missing tool's skip into a failure."""
    return os.environ.get("NERKH_REQUIRE_PYTHON") == "1"

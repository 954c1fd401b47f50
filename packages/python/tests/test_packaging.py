"""What a user installs: the package type-checks under ``mypy --strict``, builds a wheel and an
sdist ready to publish (not published), and the wheel, installed into a fresh venv outside the
checkout, imports and talks to a real nerkh."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import List

import pytest

from .conftest import PACKAGE_DIR, Nerkh, require_python


def need(module: str, debian_package: str) -> None:
    """Skips, saying why, when a tool is missing; fails instead under NERKH_REQUIRE_PYTHON=1."""
    if importlib.util.find_spec(module) is None:
        reason = f"{module} is not installed (apt-get install {debian_package})"
        if require_python():
            pytest.fail(f"NERKH_REQUIRE_PYTHON=1 but {reason}")
        pytest.skip(reason)


def run(command: List[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}"
    return done.stdout


def test_the_package_and_its_tests_pass_mypy_strict(tmp_path: Path) -> None:
    need("mypy", "python3-mypy")
    # The settings (strict, the oldest Python declared) are pyproject.toml's [tool.mypy].
    out = run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), "src", "tests"], PACKAGE_DIR)
    assert "Success: no issues found" in out


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and the sdist, built from a copy of the package so the checkout gets no build output."""
    need("build", "python3-build")
    need("setuptools", "python3-setuptools")
    scratch = tmp_path_factory.mktemp("build")
    source = scratch / "nerkh-client"
    shutil.copytree(PACKAGE_DIR, source, ignore=shutil.ignore_patterns("tests", "__pycache__", "*.egg-info", "build"))
    # --no-isolation: the build backend comes from the machine (Debian's), as no index is reachable.
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(scratch / "dist"), str(source)], scratch)
    return scratch / "dist"


def test_builds_a_wheel_and_an_sdist_with_the_metadata_an_index_shows(built: Path) -> None:
    assert sorted(path.name for path in built.iterdir()) == [
        "nerkh-client-0.1.0.tar.gz",
        "nerkh_client-0.1.0-py3-none-any.whl",
    ]
    with zipfile.ZipFile(built / "nerkh_client-0.1.0-py3-none-any.whl") as wheel:
        names = wheel.namelist()
        metadata = wheel.read("nerkh_client-0.1.0.dist-info/METADATA").decode()
    assert "nerkh_client/py.typed" in names and "nerkh_client/__init__.py" in names
    assert not any(name.startswith("tests/") for name in names)
    for line in [
        "Name: nerkh-client",
        "License: MIT",
        "Requires-Python: >=3.9",
        "Classifier: Typing :: Typed",
        "Description-Content-Type: text/markdown",
    ]:
        assert line in metadata
    assert "Requires-Dist: httpx" in metadata and ">=0.23" in metadata
    assert "# nerkh-client" in metadata  # the README is the long description
    with tarfile.open(built / "nerkh-client-0.1.0.tar.gz") as sdist:
        members = sdist.getnames()
    for member in ["PKG-INFO", "pyproject.toml", "README.md", "LICENSE", "src/nerkh_client/py.typed"]:
        assert f"nerkh-client-0.1.0/{member}" in members
    assert not any("/tests/" in member for member in members)


def test_the_wheel_installs_into_a_fresh_venv_and_reads_a_running_nerkh(
    built: Path, tmp_path: Path, nerkh: Nerkh
) -> None:
    need("ensurepip", "python3-venv")
    venv = tmp_path / "venv"
    # --system-site-packages: httpx comes from the machine, as no index is reachable; pip still
    # checks that it satisfies the wheel's requirement.
    run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], tmp_path)
    python = str(venv / "bin" / "python")
    run([python, "-m", "pip", "install", "--no-index", str(built / "nerkh_client-0.1.0-py3-none-any.whl")], tmp_path)
    script = (
        "import sys, nerkh_client\n"
        "print(nerkh_client.__file__)\n"
        "with nerkh_client.NerkhClient(sys.argv[1], sys.argv[2]) as client:\n"
        "    rates = client.get_rates(symbol='eth')\n"
        "    print(rates.status, rates.data.rates[0].symbol, client.get_health().data.status)\n"
    )
    out = run([python, "-I", "-c", script, nerkh.base_url, nerkh.key], tmp_path).splitlines()
    assert out[0].startswith(str(venv))  # the installed copy, not the checkout's src/
    assert out[1] == "200 ETH pass"

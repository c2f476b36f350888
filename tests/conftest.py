"""Shared test helpers: where the real-data fixtures are (../shared/fixtures beside the project)."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
TUFANO = FIXTURES / "tufano2021"
GITHUB_API = FIXTURES / "github_api"


@pytest.fixture(scope="session")
def tufano_dir() -> Path:
    if not TUFANO.is_dir():  # a missing fixture is a broken checkout, not a reason to skip
        raise FileNotFoundError(f"fixture folder {TUFANO} is missing: clone with ../shared beside the project")
    return TUFANO

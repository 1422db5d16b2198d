"""Skip a test whose tool is missing here, or fail it where CI says the tool must be there.

.ci/run sets REQUIRE_BROWSER=1, REQUIRE_NGINX=1 and REQUIRE_POSTGRES=1, so that
a missing Chromium, nginx or PostgreSQL fails the run instead of quietly
skipping the tests that need it."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def required(variable: str) -> bool:
    """Does this run require the tool ``variable`` names (REQUIRE_...=1)?"""
    return os.environ.get(variable) == "1"


def missing(variable: str, reason: str) -> NoReturn:
    """The tool is missing: fail if ``variable`` requires it, else skip."""
    if required(variable):
        pytest.fail(f"{variable}=1 but {reason}")
    pytest.skip(reason)

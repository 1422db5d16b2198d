"""A missing tool skips its tests here and fails them where CI requires the tool."""

import pytest
from helpers.required import missing


def test_a_required_tool_that_is_missing_fails_the_test(monkeypatch):
    monkeypatch.setenv("REQUIRE_NGINX", "1")
    with pytest.raises(pytest.fail.Exception, match="REQUIRE_NGINX=1 but nginx is not installed"):
        missing("REQUIRE_NGINX", "nginx is not installed")


@pytest.mark.parametrize("value", [None, "0", "yes"])
def test_a_tool_not_required_is_skipped(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("REQUIRE_NGINX", raising=False)
    else:
        monkeypatch.setenv("REQUIRE_NGINX", value)
    with pytest.raises(pytest.skip.Exception):
        missing("REQUIRE_NGINX", "nginx is not installed")

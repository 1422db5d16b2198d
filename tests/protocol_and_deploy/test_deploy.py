"""The two-process deploy (deploy/serve_two.sh: nginx from Debian's package in
front of two Streamlit processes) against a hostile client: one client
address holding many websockets cannot lock out new learners, the security
headers are sent, Streamlit's CORS answer and counters stay inside, and a body
far above the app's upload limit is refused before it is read.

Needs nginx (Debian: apt-get install nginx); without it the tests are skipped,
unless REQUIRE_NGINX=1 (as CI sets), which makes a missing nginx a failure."""

from __future__ import annotations

import shutil
import socket
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from helpers.required import missing
from hostile import hold_websockets, learners_get_their_page, serving_two

pytestmark = pytest.mark.deploy


@pytest.fixture(scope="module")
def deploy():
    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        missing("REQUIRE_NGINX", "nginx is not installed")
    with serving_two() as base:
        yield base


def test_one_client_holding_websockets_does_not_lock_out_new_learners(deploy):
    held = hold_websockets(deploy, "127.0.0.2", 150)
    try:
        assert len(held) < 50, len(held)  # one address gets a few tabs' worth, not 150
        assert learners_get_their_page(deploy, 6) == 6  # each from an address of its own
    finally:
        for ws in held:
            ws.close()


def _get(url: str, method: str = "GET", **headers: str):
    request = urllib.request.Request(url, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def test_security_headers_are_sent_and_no_version(deploy):
    status, headers = _get(f"{deploy}/")
    assert status == 200
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["X-Frame-Options"] == "SAMEORIGIN"
    assert "frame-ancestors 'self'" in headers["Content-Security-Policy"]
    assert headers["Server"] == "nginx"  # no version


def test_no_cross_origin_answer_and_no_counters_from_outside(deploy):
    """Streamlit answers an upload's CORS preflight with its own address
    (http://localhost:<its port>); nginx passes no such answer on."""
    preflight = {"Origin": "http://elsewhere.example", "Access-Control-Request-Method": "PUT"}
    status, headers = _get(f"{deploy}/_stcore/upload_file/session/file", "OPTIONS", **preflight)
    assert status < 500
    assert headers.get("Access-Control-Allow-Origin") is None
    assert _get(f"{deploy}/_stcore/metrics")[0] == 404


def test_a_large_body_is_refused_before_it_is_sent(deploy):
    """A 50 MB upload announced in its headers: nginx answers 413 at once,
    before the client has sent a byte of the body."""
    host, port = deploy.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(
            b"PUT /_stcore/upload_file/session/file HTTP/1.1\r\n"
            + f"Host: {host}:{port}\r\n".encode()
            + b"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 52428800\r\n\r\n"
        )
        start = time.monotonic()
        answer = sock.recv(200).decode("latin-1")
    assert answer.startswith("HTTP/1.1 413"), answer
    assert time.monotonic() - start < 10

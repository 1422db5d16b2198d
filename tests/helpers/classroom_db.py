"""The databases the classroom tests run against: a SQLite file, and a real
PostgreSQL server of the tests' own (.ci/postgres.sh, Debian's postgresql
package). Without the server's binaries the PostgreSQL tests are skipped,
unless REQUIRE_POSTGRES=1 (as .ci/run sets): then they fail."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
import sqlalchemy as sa

from course_app.classroom import store
from helpers.required import missing

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "postgres.sh"


def server_port() -> int:
    """A port for this session's server: $CLASSROOM_PG_PORT (plus the pytest-xdist
    worker's number) when set, else one that is free now, so that a server left
    running by an interrupted run, or another test run on the machine, is no obstacle."""
    if given := os.environ.get("CLASSROOM_PG_PORT"):
        return int(given) + int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """Our own PostgreSQL server: start, stop, and a fresh database per test."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="classroom-pg-")
        self.port = server_port()  # kept: a server started again is found at the same URL
        self.url = self.start()

    def start(self) -> str:
        done = subprocess.run(
            ["bash", str(SCRIPT), "start", self.dir, str(self.port)], capture_output=True, text=True
        )
        if done.returncode:
            raise RuntimeError(done.stderr)
        return done.stdout.strip()

    def stop(self) -> None:
        subprocess.run(["bash", str(SCRIPT), "stop", self.dir], check=True, capture_output=True)

    def fresh_database(self) -> str:
        """The server's database, emptied of the classroom's tables."""
        admin = sa.create_engine(self.url)
        with admin.begin() as conn:
            conn.execute(sa.text("DROP TABLE IF EXISTS events, learners, classes, schema_version CASCADE"))
        admin.dispose()
        return self.url


@pytest.fixture(scope="session")
def pg_server():
    if not list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")) or not shutil.which("runuser"):
        missing("REQUIRE_POSTGRES", "PostgreSQL's server is not installed (apt-get install postgresql)")
    try:
        server = Server()
    except RuntimeError as error:
        missing("REQUIRE_POSTGRES", f"PostgreSQL did not start: {error}")
    yield server
    server.stop()
    shutil.rmtree(server.dir, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    """A fresh, empty database: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'classroom.sqlite3'}"
    return request.getfixturevalue("pg_server").fresh_database()


@pytest.fixture
def engine(db_url):
    """A fresh database at the current schema version."""
    eng = store.make_engine(db_url)
    store.upgrade(eng)
    yield eng
    eng.dispose()

"""The class's database: schema, upgrades, and every query (SQLAlchemy Core,
no Streamlit, so it is tested alone against SQLite and PostgreSQL).

Tables: ``schema_version`` (one row), ``classes`` (name, unguessable code,
salted passcode hash, events dropped by the writer), ``learners`` (a
nickname per class, a secret seat token) and ``events`` (visit, task, quiz
answer: the lesson, the item, the time). Every statement is built with bound
parameters; nothing a user typed is ever pasted into SQL.

A learner's events are written with the learner's own id, looked up from
their seat token; the only reads of events are the teacher's, for one class,
after its passcode was checked (``open_class``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy import event as sa_event

NAME_MAX = 40  # characters of a class name or a nickname
PASSCODE_MIN, PASSCODE_MAX = 6, 128
CODE_BYTES = 12  # a class code: 96 random bits, 16 URL-safe characters
SCHEMA_VERSION = 2


def _define(meta: sa.MetaData, version_2: bool = True) -> tuple[sa.Table, ...]:
    """The tables as of version 2 (or as of version 1, for the upgrade path)."""
    later = [sa.Column("dropped", sa.Integer, nullable=False, server_default="0")] if version_2 else []
    version = sa.Table("schema_version", meta, sa.Column("version", sa.Integer, nullable=False))
    klass = sa.Table(
        "classes",
        meta,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(32), nullable=False, unique=True),
        sa.Column("name", sa.String(NAME_MAX), nullable=False),
        sa.Column("salt", sa.String(64), nullable=False),
        sa.Column("passhash", sa.String(128), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        *later,  # events the writer had to drop, counted per class
    )
    learner = sa.Table(
        "learners",
        meta,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("class_id", sa.Integer, sa.ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
        sa.Column("nickname", sa.String(NAME_MAX), nullable=False),
        sa.Column("token", sa.String(64), nullable=False, unique=True),
        sa.Column("joined", sa.Float, nullable=False),
        sa.Column("left_at", sa.Float, nullable=True),
        sa.UniqueConstraint("class_id", "nickname", name="one_nickname_per_class"),
    )
    event = sa.Table(
        "events",
        meta,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("uid", sa.String(32), nullable=False, unique=True),  # a retried write lands once
        sa.Column("class_id", sa.Integer, sa.ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
        sa.Column("learner_id", sa.Integer, sa.ForeignKey("learners.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("lesson", sa.String(32), nullable=False),
        sa.Column("item", sa.String(32), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    if version_2:
        sa.Index("events_by_class", event.c.class_id, event.c.at)
    return version, klass, learner, event


metadata = sa.MetaData()
schema_version, classes, learners, events = _define(metadata)

# Event kinds. A quiz answer is the first try (right or wrong) or a later right answer.
VISIT, TASK, QUIZ_FIRST_RIGHT, QUIZ_FIRST_WRONG, QUIZ_RIGHT = (
    "visit",
    "task",
    "quiz_first_right",
    "quiz_first_wrong",
    "quiz_right",
)
KINDS = (VISIT, TASK, QUIZ_FIRST_RIGHT, QUIZ_FIRST_WRONG, QUIZ_RIGHT)


class ClassroomError(ValueError):
    """A refusal the page explains: ``code`` names the catalog message."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


def engine_options(url: str) -> dict:
    """create_engine's options for ``url``: PostgreSQL checks a pooled
    connection before use (a restarted server is reconnected) and gives up
    connecting after 5 s; SQLite needs none."""
    if url.startswith("sqlite"):
        return {}
    return {"pool_pre_ping": True, "connect_args": {"connect_timeout": 5}}


def make_engine(url: str) -> sa.Engine:
    """An engine for ``url`` as the app makes one through st.connection."""
    return prepare(sa.create_engine(url, **engine_options(url)))


_PREPARED: weakref.WeakSet[sa.Engine] = weakref.WeakSet()  # engines given their listeners once


def prepare(engine: sa.Engine) -> sa.Engine:
    """SQLite: WAL mode (readers never wait for the writer, two processes may
    share the file), a 10 s wait for a lock, foreign keys on, and each
    transaction taking the write lock at its start (BEGIN IMMEDIATE), so two
    processes never deadlock upgrading a read into a write. Nothing for PostgreSQL."""
    if engine.dialect.name != "sqlite" or engine in _PREPARED:
        return engine
    _PREPARED.add(engine)

    @sa_event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # transactions are begun below, not by pysqlite
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout = 10000")
        _switch_to_wal(cursor)
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @sa_event.listens_for(engine, "begin")
    def _on_begin(connection):
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _switch_to_wal(cursor, wait: float = 10.0) -> None:
    """PRAGMA journal_mode = WAL, retried for up to ``wait`` seconds: the switch
    needs the file to itself and SQLite answers "database is locked" at once,
    without its busy handler, while another connection is switching too."""
    deadline = time.monotonic() + wait
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


# The upgrade path: MIGRATIONS[v - 1] takes a database from version v - 1 to v.
def _to_version_1(conn: sa.Connection) -> None:
    """The first schema: classes, learners, events."""
    v1 = sa.MetaData()
    _define(v1, version_2=False)
    v1.create_all(conn)
    conn.execute(sa.insert(schema_version), {"version": 0})


def _to_version_2(conn: sa.Connection) -> None:
    """The writer's dropped-event count per class, and the teacher's index."""
    conn.execute(sa.text("ALTER TABLE classes ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0"))
    next(index for index in events.indexes if index.name == "events_by_class").create(conn)


MIGRATIONS = (_to_version_1, _to_version_2)


def version(engine: sa.Engine) -> int:
    """The schema version of the database (0: empty)."""
    if not sa.inspect(engine).has_table("schema_version"):
        return 0
    with engine.connect() as conn:
        return int(conn.execute(sa.select(schema_version.c.version)).scalar_one())


def upgrade(engine: sa.Engine, to: int = SCHEMA_VERSION) -> int:
    """Bring the database to version ``to``, one step at a time, each step in
    its own transaction with the version it reaches. Safe when two processes
    start together: PostgreSQL takes an advisory lock, SQLite's transactions
    take the write lock first; the loser finds the work done."""
    for step in range(version(engine), to):
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": 22_2026})
            current = _version_in(conn)
            if current > step:
                continue
            MIGRATIONS[step](conn)
            conn.execute(sa.update(schema_version).values(version=step + 1))
    return version(engine)


def _version_in(conn: sa.Connection) -> int:
    if not sa.inspect(conn).has_table("schema_version"):
        return 0
    return int(conn.execute(sa.select(schema_version.c.version)).scalar_one())


# Classes and learners.
def clean_name(text: object) -> str:
    """A class name or nickname as it is kept: surrounding spaces trimmed.
    Refused (ClassroomError) when empty, longer than NAME_MAX characters or
    holding control characters; anything else is kept exactly as typed."""
    name = str(text or "").strip()
    if not name:
        raise ClassroomError("name_empty")
    if len(name) > NAME_MAX:
        raise ClassroomError("name_long")
    if any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in name):
        raise ClassroomError("name_control")
    return name


def hash_passcode(passcode: str, salt: bytes) -> str:
    """scrypt (16 MiB of memory per try): a stolen database gives no passcode cheaply."""
    return hashlib.scrypt(passcode.encode("utf-8"), salt=salt, n=2**14, r=8, p=1, dklen=32).hex()


@dataclass(frozen=True)
class ClassInfo:
    id: int
    code: str
    name: str
    dropped: int = 0


def create_class(engine: sa.Engine, name: str, passcode: str) -> ClassInfo:
    """A new class with an unguessable code; the passcode is kept only as a salted hash."""
    name = clean_name(name)
    if not PASSCODE_MIN <= len(passcode) <= PASSCODE_MAX:
        raise ClassroomError("passcode_length")
    salt = secrets.token_bytes(16)
    code = secrets.token_urlsafe(CODE_BYTES)
    row = {"code": code, "name": name, "salt": salt.hex(), "passhash": hash_passcode(passcode, salt)}
    with engine.begin() as conn:
        new_id = conn.execute(sa.insert(classes).values(**row, created=time.time())).inserted_primary_key[0]
    return ClassInfo(int(new_id), code, name)


def find_class(engine: sa.Engine, code: str) -> ClassInfo | None:
    """The class with this code (a code is at most 32 characters; longer is no class)."""
    code = str(code or "").strip()
    if not code or len(code) > 32:
        return None
    query = sa.select(classes.c.id, classes.c.code, classes.c.name, classes.c.dropped)
    with engine.connect() as conn:
        row = conn.execute(query.where(classes.c.code == code)).first()
    return ClassInfo(*row) if row else None


def open_class(engine: sa.Engine, code: str, passcode: str) -> ClassInfo | None:
    """The class, if ``passcode`` is its passcode (compared in constant time)."""
    code = str(code or "").strip()
    if not code or len(code) > 32 or len(passcode) > PASSCODE_MAX:
        return None
    query = sa.select(classes.c.salt, classes.c.passhash).where(classes.c.code == code)
    with engine.connect() as conn:
        row = conn.execute(query).first()
    if row is None:
        hash_passcode(passcode, b"0" * 16)  # the same time for no class as for a wrong passcode
        return None
    if not hmac.compare_digest(hash_passcode(passcode, bytes.fromhex(row.salt)), row.passhash):
        return None
    return find_class(engine, code)


def delete_class(engine: sa.Engine, class_id: int) -> None:
    """The class and everything of it: its learners and their events."""
    with engine.begin() as conn:
        conn.execute(sa.delete(events).where(events.c.class_id == class_id))
        conn.execute(sa.delete(learners).where(learners.c.class_id == class_id))
        conn.execute(sa.delete(classes).where(classes.c.id == class_id))


@dataclass(frozen=True)
class Seat:
    """A joined learner: what their session keeps (the token, never shown to others)."""

    class_id: int
    learner_id: int
    token: str
    nickname: str
    class_name: str


def join(engine: sa.Engine, code: str, nickname: str) -> Seat:
    """Join the class ``code`` as ``nickname``: refused when there is no such
    class or the nickname is taken in it (ClassroomError)."""
    nickname = clean_name(nickname)
    found = find_class(engine, code)
    if found is None:
        raise ClassroomError("no_class")
    token = secrets.token_urlsafe(24)
    row = {"class_id": found.id, "nickname": nickname, "token": token, "joined": time.time()}
    try:
        with engine.begin() as conn:
            learner_id = conn.execute(sa.insert(learners).values(**row)).inserted_primary_key[0]
    except sa.exc.IntegrityError:
        raise ClassroomError("nickname_taken") from None
    return Seat(found.id, int(learner_id), token, nickname, found.name)


def seat_of(engine: sa.Engine, token: str) -> Seat | None:
    """The seat a token stands for (None: unknown, or the learner left)."""
    token = str(token or "")
    if not token or len(token) > 64:
        return None
    query = (
        sa.select(learners.c.class_id, learners.c.id, learners.c.token, learners.c.nickname, classes.c.name)
        .join(classes, classes.c.id == learners.c.class_id)
        .where(learners.c.token == token, learners.c.left_at.is_(None))
    )
    with engine.connect() as conn:
        row = conn.execute(query).first()
    return Seat(*row) if row else None


def leave(engine: sa.Engine, seat: Seat) -> None:
    """The learner leaves: no more events; what they did stays in the class's tables."""
    with engine.begin() as conn:
        conn.execute(sa.update(learners).where(learners.c.token == seat.token).values(left_at=time.time()))


# Events.
@dataclass(frozen=True)
class Event:
    class_id: int
    learner_id: int
    kind: str
    lesson: str
    item: str
    at: float
    uid: str


def new_event(seat: Seat, kind: str, lesson: str, item: str = "", at: float | None = None) -> Event:
    """An event of ``seat``'s learner, stamped now, with a unique id (a write retried lands once)."""
    if kind not in KINDS:
        raise ValueError(kind)
    when = time.time() if at is None else at
    return Event(seat.class_id, seat.learner_id, kind, lesson[:32], item[:32], when, secrets.token_hex(16))


def _insert_ignoring_repeats(dialect: str):
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(events).on_conflict_do_nothing(index_elements=["uid"])


def write_events(engine: sa.Engine, batch: Iterable[Event], dropped: dict[int, int] | None = None) -> None:
    """Write a batch of events in one transaction (an event already written,
    by a retry after a lost reply, is skipped), with the counts of events
    dropped since the last write, per class."""
    rows = [e.__dict__ for e in batch]
    with engine.begin() as conn:
        wanted = {row["class_id"] for row in rows}
        alive = set(conn.execute(sa.select(classes.c.id).where(classes.c.id.in_(wanted))).scalars())
        rows = [row for row in rows if row["class_id"] in alive]  # a deleted class takes no more
        if rows:
            conn.execute(_insert_ignoring_repeats(conn.dialect.name), rows)
        for class_id, n in (dropped or {}).items():
            conn.execute(
                sa.update(classes).where(classes.c.id == class_id).values(dropped=classes.c.dropped + n)
            )


# The teacher's reads: one class at a time.
@dataclass(frozen=True)
class Member:
    id: int
    nickname: str
    left: bool


@dataclass(frozen=True)
class Done:
    """One event as the teacher's tables read it."""

    learner_id: int
    kind: str
    lesson: str
    item: str
    at: float


def class_members(engine: sa.Engine, class_id: int) -> list[Member]:
    """The class's learners in the order they joined."""
    query = sa.select(learners.c.id, learners.c.nickname, learners.c.left_at.is_not(None))
    with engine.connect() as conn:
        rows = conn.execute(query.where(learners.c.class_id == class_id).order_by(learners.c.id)).all()
    return [Member(int(i), nick, bool(left)) for i, nick, left in rows]


def class_events(engine: sa.Engine, class_id: int) -> list[Done]:
    """Every event of the class, oldest first."""
    columns = (events.c.learner_id, events.c.kind, events.c.lesson, events.c.item, events.c.at)
    query = sa.select(*columns).where(events.c.class_id == class_id).order_by(events.c.at, events.c.id)
    with engine.connect() as conn:
        return [Done(int(a), b, c, d, float(e)) for a, b, c, d, e in conn.execute(query)]


def dropped_count(engine: sa.Engine, class_id: int) -> int:
    """Events of the class the writer had to drop (the database was away too long)."""
    with engine.connect() as conn:
        value = conn.execute(sa.select(classes.c.dropped).where(classes.c.id == class_id)).scalar()
    return int(value or 0)

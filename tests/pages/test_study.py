"""Self-study mechanisms through AppTest: glossary, term look-ups, the progress
file (export, import, tampered files), reset, and the share link."""

import json
import tomllib
from pathlib import Path

import pytest
from helpers.apptest import all_text, assert_clean, open_page

from course_app.glossary import TERMS
from course_app.i18n import catalog
from course_app.progress import (
    APP_NAME,
    FILE_VERSION,
    MAX_FILE_BYTES,
    FileReading,
    Progress,
    decode,
    read_file,
    to_json,
)
from course_app.session import SHARE_VIEW as SHARE_KEY
from course_app.study import look_up_key

GLOSSARY = "pages/10_glossary.py"
ROOT = Path(__file__).resolve().parents[2]


def test_glossary_lists_every_term_with_an_anchor(lang):
    at = open_page(GLOSSARY, lang)
    assert_clean(at)
    anchors = [h.proto.anchor for h in at.subheader]
    assert anchors == [term.replace("_", "-") for term in TERMS]
    names = [h.value for h in at.subheader]
    assert names == [catalog(lang)[f"glossary.{term}.name"] for term in TERMS]


def test_glossary_covers_the_core_terms():
    core = {"matrix", "transpose", "linear_map", "dot_product", "softmax", "weighted_average",
             "parameter", "training", "gradient", "loss", "token", "embedding", "head",
             "residual", "layernorm", "temperature"}  # fmt: skip
    assert core <= set(TERMS)


def test_lessons_offer_term_look_ups_that_link_to_the_glossary():
    """A section's look-up names its terms; their definitions and links are
    drawn once it is opened, not before, and only that section's."""
    at = open_page("pages/2_attention.py", "en")
    labels = [p.proto.popover.label for p in at.get("popover")]
    assert "Terms in this section: dot product · softmax · weighted average" in labels
    assert "#dot-product" not in all_text(at)
    at.session_state[look_up_key("dot_product-softmax-weighted_average")] = True
    at.run()
    text = all_text(at)
    assert "glossary?lang=en" in text
    terms = {"dot_product": "dot-product", "softmax": "softmax", "weighted_average": "weighted-average"}
    assert all(f"term={term}#{anchor}" in text for term, anchor in terms.items())  # each opens its entry
    assert text.count("#weighted-average") == 1  # not the goal section's look-up, still closed


def test_progress_file_round_trip():
    p = Progress(visited={"attention"}, tasks={"attention.fish_half"}, quizzes={"attention.q1"})
    assert read_file(to_json(p)) == FileReading(p, None, 0)
    assert read_file(b"\xef\xbb\xbf" + to_json(p).encode()) == FileReading(p, None, 0)  # a BOM from an editor


# Levels of nesting that json refuses on every Python the tests run on (3.11 to
# 3.13 give up below 10,000), in a file under the 64 KB limit.
DEEP = 30_000


def ours(**fields) -> str:
    return json.dumps({"app": APP_NAME, "version": FILE_VERSION} | fields)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "not_json"),
        (b"not json", "not_json"),
        (b"\xff\xfe\x00", "not_json"),
        # Nesting too deep for the parser (RecursionError), within the 64 KB: json
        # gives up at 1,000 levels on 3.11 but parses them from 3.12 on (below).
        (b"[" * DEEP + b"]" * DEEP, "not_json"),
        (b'{"a":' * (DEEP // 3) + b"1" + b"}" * (DEEP // 3), "not_json"),
        (b"{" * 200_000, "too_big"),
        (b"[1, 2]", "not_progress"),
        (b"{}", "not_progress"),
        (b'{"visited": ["attention"]}', "not_progress"),
        (json.dumps({"app": "another-app", "version": 1, "visited": ["attention"]}).encode(), "other_app"),
        (ours(version=FILE_VERSION + 1, visited=["attention"]).encode(), "future_version"),
        (ours(version=True, visited=["attention"]).encode(), "not_progress"),
        (ours(version=1e400, visited=["attention"]).encode(), "not_progress"),
        (ours(visited="attention").encode(), "not_progress"),
        (ours().encode(), "nothing"),
        (ours(visited=["nope"], tasks=[3, None], quizzes=[{"x": 1}]).encode(), "nothing"),
    ],
    ids=range(16),
)
def test_files_that_restore_nothing_are_refused_with_a_reason(data, problem):
    reading = read_file(data)
    assert reading.progress is None and reading.problem == problem


def test_deep_nesting_the_parser_accepts_is_refused_all_the_same():
    """1,000 levels: too deep for json on Python 3.11 (not JSON), parsed since
    3.12 (then a list or an object without our fields: not a progress file)."""
    for data in (b"[" * 1000 + b"]" * 1000, b'{"a":' * 1000 + b"1" + b"}" * 1000):
        reading = read_file(data)
        assert reading.progress is None and reading.problem in ("not_json", "not_progress")


def test_unknown_entries_are_skipped_and_counted():
    doc = ours(visited=["attention", "nope"], tasks=["attention.fish_half", 3], colour="red")
    reading = read_file(doc)
    assert reading.skipped == 2
    assert reading.progress.visited == {"attention"} and reading.progress.tasks == {"attention.fish_half"}


def test_sixty_four_kilobytes_at_most_and_the_upload_limit_matches():
    assert MAX_FILE_BYTES == 64 * 1024
    padded = ours(visited=["attention"], pad="x" * (MAX_FILE_BYTES - 200))
    assert len(padded) <= MAX_FILE_BYTES and read_file(padded).progress is not None
    assert read_file(ours(visited=["attention"], pad="x" * MAX_FILE_BYTES)).problem == "too_big"
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == 1  # megabytes: the smallest Streamlit allows


def upload(at, data: bytes, name: str = "p.json"):
    at.file_uploader(key="progress_file").set_value((name, data, "application/json")).run()
    assert_clean(at)
    return at


SAVED = Progress(visited={"attention"}, tasks={"attention.equal"}, quizzes=set())


def test_a_file_is_shown_before_anything_changes_then_merged(lang):
    at = open_page(None, lang, {"p": "sc.000.000"})
    before = at.session_state["progress"]
    upload(at, to_json(SAVED).encode())
    assert at.session_state["progress"] == before and at.query_params["p"] == "sc.000.000"
    assert any("1" in m.value for m in at.markdown)  # the summary: 1 lesson, 1 task
    at.button(key="progress_merge").click().run()
    assert_clean(at)
    merged = at.session_state["progress"]
    assert merged.visited == {"attention", "scaling"} and merged.tasks == {"attention.equal"}
    assert decode(at.query_params["p"])[0] == merged  # the URL says what the screen says
    assert len(at.success) == 1


def test_replace_replaces_and_cancel_keeps():
    at = open_page(None, "en", {"p": "sc.000.000"})
    upload(at, to_json(SAVED).encode())
    at.button(key="progress_cancel").click().run()
    assert at.session_state["progress"].visited == {"scaling"} and at.query_params["p"] == "sc.000.000"
    upload(at, to_json(SAVED).encode(), "again.json")
    at.button(key="progress_replace").click().run()
    assert at.session_state["progress"] == SAVED
    assert decode(at.query_params["p"])[0] == SAVED


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (b"{}", "p.json"),
        (ours(visited=["nope"]).encode(), "p.json"),
        (json.dumps({"app": "other", "version": 1, "visited": ["attention"]}).encode(), "p.json"),
        (ours(version=99, visited=["attention"]).encode(), "p.json"),
        (b"[" * 1000 + b"]" * 1000, "p.json"),
        (b"x" * (70 * 1024), "p.json"),
        (to_json(SAVED).encode(), "p.txt"),
    ],
    ids=["empty", "unknown", "other-app", "future", "nested", "70KB", "txt"],
)
def test_a_file_that_restores_nothing_changes_nothing(data, name, lang):
    at = open_page(None, lang, {"p": "sc.000.000"})
    before = at.session_state["progress"]
    upload(at, data, name)
    assert at.session_state["progress"] == before and at.query_params["p"] == "sc.000.000"
    assert len(at.error) == 1 and not at.success
    problems = {catalog(lang)[k] for k in catalog(lang) if k.startswith("home.import_problem.")}
    assert any(at.error[0].value == p.format(max_kb=64) for p in problems)
    assert not at.get("button") or "progress_merge" not in [b.key for b in at.button]


def test_reset_erases_progress():
    at = open_page(None, "en", {"p": "at.111.111"})
    assert at.session_state["progress"].tasks
    at.button(key="progress_reset").click().run()
    assert at.session_state["progress"] == Progress()
    assert "p" not in at.query_params


def test_share_link_is_offered_with_the_language():
    # The controls' own values reach the link through the browser's URL (bound
    # widgets); test_browser.py checks that part in Chromium.
    at = open_page("pages/2_attention.py", "en", {"p": "at.000.000"})
    assert not at.code  # drawn only once opened
    at.session_state[SHARE_KEY] = True
    at.run()
    links = [c.value for c in at.code]
    assert any("lang=en" in link for link in links), links
    assert not any("p=at" in link for link in links), links  # the view, not the sharer's progress

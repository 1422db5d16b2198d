"""Issue 6 mechanisms through AppTest: glossary, term look-ups, the progress
file (export, import, tampered files), reset, and the share link."""

import json

import pytest
from conftest import all_text, assert_clean, open_page

from lesson_core.glossary import TERMS
from lesson_core.progress import Progress, from_json, to_json
from lesson_core.ui.i18n import catalog

GLOSSARY = "pages/8_glossary.py"


def test_glossary_lists_every_term_with_an_anchor(lang):
    at = open_page(GLOSSARY, lang)
    assert_clean(at)
    anchors = [h.proto.anchor for h in at.subheader]
    assert anchors == [term.replace("_", "-") for term in TERMS]
    names = [h.value for h in at.subheader]
    assert names == [catalog(lang)[f"glossary.{term}.name"] for term in TERMS]


def test_glossary_covers_the_brief_terms():
    brief = {"matrix", "transpose", "linear_map", "dot_product", "softmax", "weighted_average",
             "parameter", "training", "gradient", "loss", "token", "embedding", "head",
             "residual", "layernorm", "temperature"}  # fmt: skip
    assert brief <= set(TERMS)


def test_lessons_offer_term_look_ups_that_link_to_the_glossary():
    at = open_page("pages/2_attention.py", "en")
    labels = [p.proto.popover.label for p in at.get("popover")]
    assert "dot product" in labels and "softmax" in labels
    assert "glossary?lang=en" in all_text(at) and "#dot-product" in all_text(at)


def test_progress_file_round_trip():
    p = Progress(visited={"attention"}, tasks={"attention.fish_half"}, quizzes={"attention.q1"})
    assert from_json(to_json(p)) == (p, True)


@pytest.mark.parametrize(
    "data",
    [b"", b"not json", b"[1, 2]", b'{"visited": "attention"}', b"\xff\xfe\x00", b"{" * 200_000],
)
def test_garbage_files_are_refused(data):
    assert from_json(data) == (None, False)


def test_unknown_entries_and_fields_are_dropped():
    doc = {"visited": ["attention", "nope"], "tasks": ["attention.fish_half", 3], "colour": "red"}
    progress, clean = from_json(json.dumps(doc))
    assert not clean
    assert progress.visited == {"attention"} and progress.tasks == {"attention.fish_half"}


def test_import_a_progress_file_on_the_home_page(lang):
    at = open_page(None, lang)
    saved = to_json(Progress(visited={"attention"}, tasks={"attention.equal"}, quizzes=set()))
    at.file_uploader(key="progress_file").set_value(("p.json", saved.encode(), "application/json")).run()
    assert_clean(at)
    assert at.session_state["progress"].tasks == {"attention.equal"}
    assert at.query_params["p"].startswith("at.100")
    assert len(at.success) == 1


def test_a_tampered_file_gets_a_message_not_an_exception():
    at = open_page(None, "en")
    at.file_uploader(key="progress_file").set_value(("p.json", b"<script>", "application/json")).run()
    assert_clean(at)
    assert len(at.error) == 1
    assert at.session_state["progress"] == Progress()


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
    links = [c.value for c in at.code]
    assert any("lang=en" in link for link in links), links
    assert not any("p=at" in link for link in links), links  # the view, not the sharer's progress

"""Statement audit of the bigram lesson (tests/helpers/statement_audit.py): what the page
says after a sentence is added, and the rankings it states, hold at every
setting they depend on.

Expected values are worked out here from the corpus, never read from the page."""

from helpers.apptest import all_text, open_page
from helpers.statement_audit import audit, grid

from lesson_core.examples import CORPUS

PAGE = "pages/1_bigram.py"


def add(at, text: str):
    at.text_input(key="bg_new").input(text)
    return at.button(key="bg_add").click().run()


def test_a_missing_space_is_pointed_out(lang):
    # "ねこは ミルクが すき": two spaces missing, so ねこは and ミルクが would be new tokens
    known = {tok for s in CORPUS for tok in s}
    assert "ねこは" not in known and "ミルクが" not in known and "すき" in known
    at = add(open_page(PAGE, lang), "ねこは ミルクが すき")
    text = all_text(at)
    assert "ねこは" in text and "ミルクが" in text
    assert {"ja": "スペースの入れ忘れ", "en": "no space is missing"}[lang] in text


def test_no_warning_when_every_token_is_known(lang):
    at = add(open_page(PAGE, lang), "ねこ が ひるね を すき")
    assert {"ja": "スペースの入れ忘れ", "en": "no space is missing"}[lang] not in all_text(at)


def test_the_sentence_ends_the_corpus_says_have_empty_rows():
    # every token the page calls "always last" has no follower in the corpus
    def claim(setting):
        tok = setting["token"]
        followers = [s[i + 1] for s in CORPUS for i, t in enumerate(s[:-1]) if t == tok]
        return None if not followers else f"{tok} is followed by {followers}"

    audit(claim, grid(token=["すき"]))

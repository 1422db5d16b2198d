"""The glossary's entries: every term has its three texts in both languages,
and the claims the lessons lean on are stated the way the maths has them."""

import pytest

from course_app.glossary import TERMS
from course_app.i18n import LANGS, catalog


@pytest.mark.parametrize("lang", LANGS)
def test_every_term_has_name_short_and_long(lang):
    cat = catalog(lang)
    for term in TERMS:
        for field in ("name", "short", "long"):
            assert cat[f"glossary.{term}.{field}"].strip(), (term, field)
        # the one-line text is shorter than the entry it introduces
        assert len(cat[f"glossary.{term}.short"]) < len(cat[f"glossary.{term}.long"]), term


def test_self_attention_and_decoder_only_are_defined():
    assert {"self_attention", "decoder_only", "prefix"} <= set(TERMS)
    assert catalog("ja")["glossary.self_attention.name"] == "セルフアテンション"
    assert catalog("ja")["glossary.decoder_only.name"] == "デコーダのみのモデル"
    assert catalog("en")["glossary.decoder_only.name"] == "decoder-only model"


def test_dot_product_says_direction_decides_only_at_equal_length():
    # the scaling lesson relies on longer vectors giving larger dot products
    ja, en = catalog("ja"), catalog("en")
    assert "長さが同じなら" in ja["glossary.dot_product.short"]
    assert "equal length" in en["glossary.dot_product.short"]
    assert "同じ向きのベクトルどうしなら、長いほど内積は大きく" in ja["glossary.dot_product.long"]
    assert "the longer they are, the larger the product" in en["glossary.dot_product.long"]


def test_embedding_closeness_is_an_outcome_not_the_goal():
    ja, en = catalog("ja"), catalog("en")
    for text in (ja["glossary.embedding.short"], en["glossary.embedding.short"]):
        assert "学習される" not in text and "training puts" not in text
    assert "目的として教えたものではありません" in ja["glossary.embedding.long"]
    assert "not something the training asks for" in en["glossary.embedding.long"]


def test_training_steps_against_the_gradient():
    ja, en = catalog("ja"), catalog("en")
    assert "いちばん速く増える向き" in ja["glossary.gradient.long"]
    assert "勾配と逆の向き" in ja["glossary.gradient.long"]
    assert "grows fastest" in en["glossary.gradient.long"]
    assert "against the gradient" in en["glossary.gradient.long"]


def test_the_glossary_page_opens_with_an_index_of_links_to_every_term(lang):
    from helpers.apptest import assert_clean, open_page

    at = open_page("pages/10_glossary.py", lang)
    assert_clean(at)
    index = at.markdown[1].value  # after the intro, before the first term
    for term in TERMS:
        name = catalog(lang)[f"glossary.{term}.name"]
        assert f"[{name}](#{term.replace('_', '-')})" in index, term

"""Statement audit of the attention lesson (tests/helpers/statement_audit.py): every
sentence naming a top token, a ranking or a change holds at every setting of
the controls it depends on, in both languages.

The numbers are recomputed here with lesson_core, as the page computes them."""

import numpy as np
import pytest
from helpers.apptest import all_text, open_page
from helpers.statement_audit import audit, grid, in_lang, ranked, top_sentence

from course_app import ranking, views
from course_app.i18n import LANGS, gloss
from lesson_core import causal_mask, linear_map
from lesson_core import scaled_dot_product_attention as attention
from lesson_core.examples import CHAPTER, PRONOUN, TOY, W_KEY, W_QUERY
from lesson_core.ranking import tops

PAGE = "pages/2_attention.py"
N, KV = len(PRONOUN.tokens), PRONOUN.vectors
IT, FISH, ATE, WAS, STOP = (PRONOUN.index(tok) for tok in ("それ", "魚", "食べた", "だった", "。"))
CORNERS = (-3.0, 0.0, 3.0)  # each query slider's ends and its middle (a zero query: every score ties)
TEMPERATURES = (0.1, 1.0, 5.0)  # the temperature slider's ends and its default


def explorer_sentence(setting):
    """The explorer's summary under the bars, as the page renders it."""
    lang, query, masked = setting["lang"], setting["query"], setting["masked"]
    queries = PRONOUN.queries.copy()
    queries[query] = setting["q"]
    allowed = causal_mask(N) if masked else None
    weights = attention(queries, KV, KV, mask=allowed, temperature=setting["T"]).weights[query]
    with in_lang(lang):
        labels = views.glossed_labels(PRONOUN.tokens)
        text = ranking.top_text("ui.weights_summary", labels, weights, query=labels[query], total="1")
        alt = ranking.top_text("ui.explorer.bars_alt", labels, weights, escape=False, query=labels[query])
    return top_sentence(text, labels, weights, lang) or top_sentence(alt, labels, weights, lang)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("query", range(N))
def test_the_explorer_names_the_top_token_or_the_tie(lang, query):
    settings = grid(
        lang=[lang],
        query=[query],
        masked=(True, False),
        T=TEMPERATURES,
        q=[np.array(q) for q in grid_of_queries()],
    )
    audit(explorer_sentence, settings)


def grid_of_queries():
    return [tuple(v) for v in np.array(np.meshgrid(*[CORNERS] * 4)).reshape(4, -1).T]


def test_the_zero_query_is_a_tie_the_audit_sees():
    # the audit's own check can fail: a sentence naming one token on a tie is caught
    weights = np.full(7, 1 / 7)
    labels = list("abcdefg")
    assert top_sentence("x attends most to **a** (14.3%)", labels, weights, "en") is not None


def test_the_fixed_sentences_name_untied_leaders():
    full = attention(PRONOUN.queries, KV, KV, mask=causal_mask(N)).weights
    toy = attention(TOY.queries, TOY.vectors, TOY.vectors).weights[0]
    assert tops(toy).tolist() == [TOY.index("魚")]  # steps.output: "the largest weight goes to 魚"
    assert tops(full[IT]).tolist() == [FISH]  # demo.fresh: それ's largest weight is 魚's
    assert tops(full[PRONOUN.index("新鮮")]).tolist() == [FISH]  # ... and 新鮮's
    assert tops(full[WAS]).tolist() == [FISH]  # quiz q2: だった gives its largest weight to 魚
    assert tops(full[STOP]).tolist() == [ATE]  # quiz q2's feedback: 。 gives the most to 食べた
    x, sk = CHAPTER.vectors, CHAPTER.index("すき")
    chapter = attention(x, x, x).weights[sk]
    first, second = np.argsort(chapter)[::-1][:2]
    assert ranked(chapter, [first, second]) is None  # chapter.result: first and second, no tie


def test_hand_made_matrices_are_shown_with_the_weights_they_give(lang):
    # Q = K = V: すき gives itself 26.3 %; with W_Q and W_K it gives itself 27.8 %: more, not less
    x, sk, nap = CHAPTER.vectors, CHAPTER.index("すき"), CHAPTER.index("ひるね")
    q = x @ np.asarray(W_QUERY)
    k = x @ np.asarray(W_KEY)
    s = q[sk] @ k.T / np.sqrt(2)
    after = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    assert round(100 * after[sk], 1) == 27.8 and round(100 * after[nap], 1) == 33.2
    assert np.allclose(after, attention(linear_map(x, W_QUERY), linear_map(x, W_KEY), x).weights[sk])
    at = open_page(PAGE, lang, folds=True)
    text = all_text(at)
    assert "26.3%" in text and "27.8%" in text and "29.6%" in text and "33.2%" in text
    assert {
        "ja": "自分自身への重みも、26.3% から 27.8% に増えています",
        "en": "grew too, from 26.3% to 27.8%",
    }[lang] in text
    assert {"ja": "学習が見つけます", "en": "training finds"}[lang] in text
    assert gloss("すき") or True  # the glossed label comes from the catalog either way


def test_the_prediction_reason_holds():
    # "among the keys それ can see, 魚 has the largest food part, so the largest dot product"
    q, keys = PRONOUN.queries[IT], PRONOUN.vectors[: IT + 1]
    food = PRONOUN.axes.index("food")
    assert int(np.argmax(keys[:, food])) == FISH and len(tops(keys[:, food], 1, 1)) == 1
    assert int(np.argmax(keys @ q)) == FISH and len(tops(keys @ q, 1, 2)) == 1


def test_the_learner_predicts_before_the_answer_is_told(lang):
    at = open_page(PAGE, lang)
    told = {"ja": "いちばん大きい重みを向けるのは **魚", "en": "gives its largest weight to **魚"}[lang]
    assert told not in all_text(at)  # nothing told before a prediction
    at.radio(key="at_predict").set_value(0).run()  # 猫: wrong
    assert not at.exception, [e.value for e in at.exception]
    text = all_text(at)
    assert {"ja": "食べ物の成分がいちばん大きいのが「魚」", "en": "has the largest food part"}[lang] in text
    assert told in text and "65.7%" in text and "18.8%" in text  # 魚 65.7 %, the guess 猫 18.8 %
    assert {"ja": "予想は", "en": "You predicted"}[lang] in text
    at.radio(key="at_predict").set_value(FISH).run()
    assert {"ja": "予想どおり", "en": "As you predicted"}[lang] in all_text(at)


def test_a_key_that_is_not_its_value(lang):
    # same q and keys as the worked example, values on [size, lives in water]
    q, keys = np.array([0.0, 2.0]), np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    s = keys @ q / np.sqrt(2)
    w = np.exp(s) / np.exp(s).sum()
    values = np.array([[0.6, 0.0], [0.2, 1.0], [0.0, 0.0]])
    out = w @ values
    assert np.allclose(np.round(out, 2), [0.18, 0.77]) and round(100 * w[1], 1) == 76.8
    text = all_text(open_page(PAGE, lang, folds=True))
    assert "[0.18, 0.77]" in text and "76.8%" in text

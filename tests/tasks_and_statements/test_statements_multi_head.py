"""Statement audit, lesson 6 (multi-head attention): a sentence that names the
token a head "looks most at" must hold at every query and k (a tie reads as a
tie), and the untrained run's "largest weight" must name every place that
reaches it, at every seed and head count; the weights are written out again
here, independently of lesson_core."""

import numpy as np
import pytest
from helpers.apptest import assert_clean, open_page
from helpers.written_out import independent_run

from course_app.i18n import catalog

PAGE = "pages/6_multi_head.py"
TOKENS = ("猫", "が", "魚", "を", "食べた", "。", "それ", "は", "新鮮", "だった")
N, IT = len(TOKENS), TOKENS.index("それ")


def look_back(query: int, k: int) -> np.ndarray:
    """The look-back head: keys one-hot by position, query 10·e_(i−k) (zero when
    there is no token k back), d_k = 10, causal mask."""
    s = np.zeros(N)
    if query - k >= 0:
        s[query - k] = 10 / np.sqrt(10)
    w = np.exp(s[: query + 1] - s[: query + 1].max())
    return np.concatenate([w / w.sum(), np.zeros(N - query - 1)])


def summary(at, lang: str) -> str:
    marker = "the look-back head" if lang == "en" else "「さかのぼる」ヘッドは"
    start = "For " if lang == "en" else ""
    lead = "" if lang == "en" else " について："
    found = [m.value for m in at.markdown if m.value.strip().startswith(start) and marker in m.value]
    (text,) = [v for v in found if lead in v.split("\n")[0]] if lead else found
    return text


@pytest.mark.parametrize(("query", "k"), [(1, 3), (2, 3), (1, 2), (IT, 1), (IT, 2)])
def test_look_back_sentence_names_a_tie_as_a_tie(lang, query, k):
    """が with k = 3 (and k = 2), 魚 with k = 3: nothing k back, so the weights are
    even and no token is looked at most. A clear top is named as before."""
    at = open_page(PAGE, lang)
    at.select_slider(key="mh_offset").set_value(k)
    at.selectbox(key="mh_query").set_value(query).run()
    assert_clean(at)
    w = look_back(query, k)
    top = np.flatnonzero(w >= w.max() - 5e-4)
    text = summary(at, lang).split("look-back head" if lang == "en" else "「さかのぼる」ヘッドは")[1]
    if len(top) > 1:
        assert "looks most" not in text and "いちばん見ています" not in text
        assert all(TOKENS[i] in text for i in top)
        assert f"{100 * w[top[0]]:.1f}%" in text
    else:
        assert ("looks most" in text) if lang == "en" else ("いちばん見ています" in text)
        assert TOKENS[top[0]] in text and f"{100 * w[top[0]]:.1f}%" in text


def test_every_query_and_k_reads_true():
    """The whole grid in English: 10 queries × k = 1, 2, 3."""
    at = open_page(PAGE, "en")
    for k in (1, 2, 3):
        at.select_slider(key="mh_offset").set_value(k)
        for query in range(N):
            at.selectbox(key="mh_query").set_value(query).run()
            w = look_back(query, k)
            top = np.flatnonzero(w >= w.max() - 5e-4)
            text = summary(at, "en").split("look-back head")[1]
            assert ("looks most" in text) is (len(top) == 1), (query, k, text)


@pytest.mark.parametrize(("seed", "h"), [(5, 1), (8, 8), (0, 2), (39, 4)])
def test_untrained_largest_weight_names_every_place_that_reaches_it(lang, seed, h):
    """が and を have the same key, so any head weights them equally: where one of
    them holds the largest weight, the sentence must name both."""
    at = open_page(PAGE, lang, folds=True)
    at.slider(key="mh_seed").set_value(seed)
    at.select_slider(key="mh_run_heads").set_value(h).run()
    assert_clean(at)
    rows = independent_weights(seed, h)[:, IT, :]
    places = [divmod(int(i), N) for i in np.flatnonzero(rows >= rows.max() - 5e-4)]
    start = "None of these heads" if lang == "en" else "どのヘッドも学習前"
    (flat,) = [m.value for m in at.markdown if m.value.strip().startswith(start)]
    assert f"**{100 * rows.max():.1f}%**" in flat
    for head, key in places:
        assert TOKENS[key] in flat and f"{head + 1}" in flat
    tie = "there is a tie" if lang == "en" else "並ぶものがあります"
    assert (tie in flat) is (len(places) > 1)


def independent_weights(seed: int, h: int) -> np.ndarray:
    """Every head's weights of the run (the page test's independent run, weights only)."""
    first = [[3, 0, 0, 0], [0, 0, 0, 2], [1, 3, 0, 0], [0, 0, 0, 2], [0, 0.5, 3, 0]]
    rest = [[0, 0, 0, 1], [0.3, 0.3, 0, 1], [0, 0, 0, 2], [0, 1.5, 0, 0], [0, 0, 0.5, 1.5]]
    features = np.array([*first, *rest])
    x = features @ np.random.default_rng(2017).normal(0, 1 / 2, size=(1, 4, 8))[0]
    w_q, w_k, _, _ = np.random.default_rng(seed).normal(0, 1 / np.sqrt(8), size=(4, 8, 8))
    d, allowed = 8 // h, np.tril(np.ones((N, N), dtype=bool))
    out = []
    for k in range(h):
        cut = slice(k * d, (k + 1) * d)
        s = np.where(allowed, (x @ w_q[:, cut]) @ (x @ w_k[:, cut]).T / np.sqrt(d), -np.inf)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        out.append(e / e.sum(axis=1, keepdims=True))
    assert independent_run(seed, h).shape == (N, 8)  # the same run the page test checks
    return np.array(out)


def test_w_o_mixes_rather_than_restores_the_width():
    """The concatenation already has width d; W_O mixes the heads."""
    for lang, gone in (("en", "back to the width"), ("ja", "もとの幅 $d$ に戻します")):
        msg = catalog(lang)
        assert gone not in msg["multi_head.shapes.out"] and gone not in msg["multi_head.end.takeaway"]
    assert (
        "mixes" in catalog("en")["multi_head.shapes.out"] and "混ぜ" in catalog("ja")["multi_head.shapes.out"]
    )


def test_induction_feedback_says_the_same_in_both_languages():
    en = catalog("en")["multi_head.quiz.q2.feedback"][1]
    assert "repeat the sentence wrongly" not in en


@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_look_back_prediction_is_asked_before_it_is_told(lang, k):
    """Above the chart the learner predicts where the look-back head sends それ at
    this k: nothing is told before a choice; then right or wrong, the head's
    true top token for this k (written out here) and why. A wrong guess and the
    right one, at every k; the prediction is never kept in the URL."""
    at = open_page(PAGE, lang)
    at.select_slider(key="mh_offset").set_value(k).run()
    key = f"mh_predict_k{k}"
    right = {"ja": "予想どおり", "en": "As you predicted"}[lang]
    wrong = {"ja": "予想は", "en": "You predicted"}[lang]
    why = {"ja": "位置だけを見ます", "en": "uses their positions only"}[lang]

    def feedback() -> list[str]:
        return [m.value for m in at.markdown if right in m.value or wrong in m.value or why in m.value]

    assert at.radio(key=key).value is None and feedback() == []
    url = dict(at.query_params)
    w = look_back(IT, k)
    target = IT - k
    assert np.flatnonzero(w >= w.max() - 5e-4).tolist() == [target]  # one clear top for それ at every k
    for guess in (0 if target else 1, target):
        at.radio(key=key).set_value(guess).run()
        assert_clean(at)
        said, reason = feedback()
        assert (right in said) is (guess == target) and (wrong in said) is (guess != target)
        assert TOKENS[target] in said and f"{100 * w[target]:.1f}%" in said
        assert why in reason and TOKENS[target] in reason and f"{k} " in reason
        assert dict(at.query_params) == url  # a prediction is not a setting: the link stays the same

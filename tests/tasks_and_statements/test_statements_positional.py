"""Statement audit, lesson 5 (positional encoding): every sentence that names a
largest, a smallest, a trend or a comparison about numbers on screen is checked
at every setting of the controls it depends on (the word-order demo's mask and
layers; the explorer's positions and d_model), against numbers computed here
independently of lesson_core; and the fixed sentences the review found wrong
say what is true."""

import numpy as np
import pytest
from helpers.apptest import all_text, assert_clean, open_page

from course_app.i18n import catalog

PAGE = "pages/5_positional.py"
VECTORS = {"ねこ": [0.9, 0.2, 0.1, 0.0], "が": [0.0, 0.1, 0.0, 0.8], "いぬ": [0.8, 0.0, 0.3, 0.1]}
VECTORS |= {"を": [0.1, 0.0, 0.0, 0.9], "追う": [0.2, 0.1, 0.9, 0.1]}
A, B = ["ねこ", "が", "いぬ", "を", "追う"], ["いぬ", "が", "ねこ", "を", "追う"]
SWAP = [B.index(tok) for tok in A]


def attend(x: np.ndarray, causal: bool) -> np.ndarray:
    n = len(x)
    s = x @ x.T / np.sqrt(x.shape[1])
    if causal:
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ x


def layers_out(x: np.ndarray, causal: bool, layers: int) -> np.ndarray:
    """out_1 = Attn(X); with two layers, out_2 = Attn(X + out_1) (a residual)."""
    out = attend(x, causal)
    return attend(x + out, causal) if layers == 2 else out


def differences(causal: bool, layers: int) -> np.ndarray:
    xa = np.array([VECTORS[t] for t in A])
    xb = np.array([VECTORS[t] for t in B])
    return np.abs(layers_out(xa, causal, layers) - layers_out(xb, causal, layers)[SWAP]).max(axis=1)


def fmt(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}".replace("-", "−")


# --- the word-order demo: mask × layers ------------------------------------------------


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("layers", [1, 2])
def test_word_order_sentences_hold_for_mask_and_layers(lang, causal, layers):
    at = open_page(PAGE, lang)
    at.toggle(key="pe_mask").set_value(causal)
    at.radio(key="pe_layers").set_value(layers)
    at.run()
    assert_clean(at)
    assert at.toggle(key="pe_mask").value is causal
    diff = differences(causal, layers)
    assert list(at.dataframe[0].value[catalog(lang)["positional.col.difference"]]) == [fmt(x) for x in diff]
    text = all_text(at)
    msg = catalog(lang)
    if not causal:  # no mask: any number of layers only reorders
        assert np.all(diff < 1e-12)
        assert msg["positional.order.same"].split("{")[0].strip() in text
        why = "positional.order.why" if layers == 1 else "positional.order.why_stacked"
        assert msg[why].strip().split("\n")[0] in text
    elif layers == 1:  # one masked layer: を and 追う keep their outputs
        assert np.all(diff[3:] < 1e-12) and np.all(diff[:3] > 1e-3)
        assert msg["positional.order.masked_why"].strip().split("\n")[-1] in text
        assert msg["positional.order.masked_stacked"].strip().split("\n")[0] not in text
    else:  # two masked layers: every output changes, を and 追う too
        assert np.all(diff > 1e-3)
        assert f"{fmt(diff.min())}" in text and f"{fmt(diff.max())}" in text
        assert msg["positional.order.masked_stacked"].strip().split("\n")[0] in text
        assert msg["positional.order.masked_why"].strip().split("\n")[-1] not in text


def test_two_layers_change_the_later_outputs_in_the_quiz_sentence():
    """The review's figures: わたし は 本 を 読む against は わたし 本 を 読む (example B's
    vectors), Q = K = V = X, ÷√d, a residual: one layer leaves 本, を, 読む alone;
    two move them by 0.108, 0.137 and 0.054 (Euclidean distance)."""
    from lesson_core.examples import DECODER
    from lesson_core.positional import stacked_self_attention

    vec = dict(zip(DECODER.tokens, DECODER.vectors, strict=True))
    a, b = ["わたし", "は", "本", "を", "読む"], ["は", "わたし", "本", "を", "読む"]
    xa, xb = np.array([vec[t] for t in a]), np.array([vec[t] for t in b])
    for layers, expected in ((1, [0.0, 0.0, 0.0]), (2, [0.108, 0.137, 0.054])):
        mine = np.linalg.norm(layers_out(xa, True, layers)[2:] - layers_out(xb, True, layers)[2:], axis=1)
        core = stacked_self_attention(xa, True, layers)[2:] - stacked_self_attention(xb, True, layers)[2:]
        assert np.round(mine, 3).tolist() == expected
        assert np.allclose(np.linalg.norm(core, axis=1), mine)


def test_one_layer_is_named_where_the_mask_hides_order():
    """The order inside a prefix is invisible to ONE layer: every fixed sentence
    that says so names the one layer (positional ×4, capstone q3)."""
    for lang, word in (("en", "one"), ("ja", "1 段")):
        msg = catalog(lang)
        assert word in msg["positional.quiz.q3.question"].lower()
        assert word in msg["positional.quiz.q3.feedback"][0]
        assert word in msg["positional.order.masked_why"].strip().split("\n")[-1]
        assert word in msg["positional.end.takeaway"]
        assert word in msg["capstone.quiz.q3.feedback"][2]


# --- the explorer: positions × d_model --------------------------------------------------


def pe(n: int, d: int) -> np.ndarray:
    pos = np.arange(n)[:, None]
    angle = pos / 10000 ** ((np.arange(d) // 2) * 2 / d)
    return np.where(np.arange(d) % 2 == 0, np.sin(angle), np.cos(angle))


GRID_N = (2, 3, 5, 8, 20, 45, 50, 100, 200, 256)


def test_similarity_trend_is_true_at_every_size():
    """The sentence either says the dot product only falls (then it never rises
    over the positions shown) or names a position and a farther one where it is
    higher (then both are on screen, farther, and higher as printed)."""
    from lesson_core.positional import encoding_explorer, similarity_trend

    for n in GRID_N:
        for d in range(2, 129, 2):
            row = pe(n, d) @ pe(n, d)[0]
            trend = similarity_trend(encoding_explorer(n, d).similarity)
            assert row[1] < row[0]  # "right next to the diagonal it falls"
            if trend.falls:
                assert np.all(np.diff(row) <= 1e-12), (n, d)
                continue
            assert np.any(np.diff(row) > 1e-12), (n, d)
            assert 1 <= trend.low_at < trend.high_at <= n - 1, (n, d)
            assert np.isclose(trend.low, row[trend.low_at]) and np.isclose(trend.high, row[trend.high_at])
            assert trend.high > trend.low + 1e-3, (n, d)


def test_similarity_text_at_the_defaults(lang):
    """d_model 16, 50 positions: PE_0·PE_k falls to 1.84 at k = 28 and is back at
    5.30 at k = 38 (3.40 at 49); ‖PE‖² = 8. No sentence says nearer is always more alike."""
    at = open_page(PAGE, lang, folds=True)
    row = pe(50, 16) @ pe(50, 16)[0]
    figures = (round(row[28], 2), round(row[38], 2), round(row[49], 2), round(row[0], 2))
    assert figures == (1.84, 5.3, 3.4, 8.0)
    assert int(np.argmin(row[1:])) + 1 == 28 and int(np.argmax(row[29:])) + 29 == 38
    text = all_text(at)
    assert "1.84" in text and "5.30" in text and "28" in text and "38" in text
    assert "nearby positions are more alike than distant ones" not in text
    assert "近い位置ほど似ていて、遠い位置ほど似ていない" not in text
    msg = catalog(lang)
    assert msg["positional.explore.similarity_offset"].strip().split("\n")[0] in text


def test_a_small_rise_is_printed_with_enough_digits(lang):
    """8 positions at d_model 86: PE_0·PE_k rises only from 31.6334 (k = 5) to
    31.6347 (k = 6); the sentence must not print one number twice."""
    at = open_page(PAGE, lang, {"pe_n": "8", "pe_d": "86"}, folds=True)
    row = pe(8, 86) @ pe(8, 86)[0]
    assert np.all(np.diff(row[:6]) < 0) and row[6] > row[5]
    assert (round(row[5], 3), round(row[6], 3)) == (31.633, 31.635)
    text = all_text(at)
    assert "31.633" in text and "31.635" in text


def test_position_vector_length_in_the_quiz():
    """q2's feedback: more hands do make the position vector longer, ‖PE‖² = d_model / 2."""
    for d in (2, 16, 128):
        assert np.allclose((pe(7, d) ** 2).sum(axis=1), d / 2)
    for lang in ("en", "ja"):
        feedback = catalog(lang)["positional.quiz.q2.feedback"][0]
        assert "d_{model} / 2" in feedback
    assert "do not make the position vector stronger" not in catalog("en")["positional.quiz.q2.feedback"][0]


def test_many_not_most_models_rotate():
    """en and ja say the same: 多く = many."""
    assert "Many of today's models" in catalog("en")["positional.clock.real"]
    assert "多くのモデル" in catalog("ja")["positional.clock.real"]

"""Statement audit of the scaling lesson (tests/helpers/statement_audit.py): the
sentences about spreads, one-hot weights and the Jacobian's size hold for every
seed the sliders offer, and the temperature bars name their top token or tie.

The numbers are recomputed here with plain NumPy, never read from the page."""

import numpy as np
import pytest
from helpers.apptest import all_text, open_page
from helpers.statement_audit import audit, grid, in_lang, peaked, top_sentence

from course_app import ranking
from course_app.i18n import LANGS, gloss, pct_label
from lesson_core import causal_mask
from lesson_core import scaled_dot_product_attention as attention
from lesson_core.examples import PRONOUN

PAGE = "pages/3_scaling.py"
SEEDS = range(100)  # both seed sliders: 0-99
D_KS = [2**i for i in range(10)]
SPREADS = np.geomspace(0.25, 16.0, 25)  # the spread slider's range, log-spaced as the chart's grid


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def scores(seed: int) -> np.ndarray:
    """The 12 standardised scores of section 2 for a seed (the page's generator)."""
    x = np.random.default_rng(seed).standard_normal(12)
    return (x - x.mean()) / x.std()


def jacobian_size(p: np.ndarray) -> float:
    return float(np.linalg.norm(np.diag(p) - np.outer(p, p)))


def spreads_measured(seed: int):
    """Section 1's measurement: std of q·k (and divided by √d_k) over 2,000 pairs per d_k."""
    from lessons.scaling import parts

    return parts.dk_sweep(seed)


@pytest.mark.slow  # a spread measured for every seed: seconds
def test_measured_spread_lies_on_the_theory_line_for_every_seed():
    # "the measured line and the theory line lie almost on top; divided by √d_k it is back to about 1"
    def claim(setting):
        sweep = spreads_measured(setting["seed"])
        off = np.abs(sweep.std_raw / np.sqrt(sweep.d_k) - 1)
        return None if off.max() < 0.1 else f"{off.max():.3f} off the theory"

    audit(claim, grid(seed=SEEDS))


def test_the_average_jacobian_peaks_inside_and_falls():
    from lessons.scaling import parts

    assert peaked(parts.typical_gradient()) is None


def test_a_seed_that_does_not_peak_is_told_why():
    # "where the two largest scores are almost equal, the line has not come down even at σ = 16":
    # every seed whose curve does not peak inside has its top weight under 90 % at σ = 16,
    # which is when the page adds its note on the close pair
    def claim(setting):
        z = scores(setting["seed"])
        sizes = [jacobian_size(softmax(s * z)) for s in SPREADS]
        top_at_max = softmax(16.0 * z).max()
        if peaked(np.array(sizes)) is not None and top_at_max >= 0.9:
            return "no peak, yet the page would say nothing"
        return None

    audit(claim, grid(seed=SEEDS))


def test_the_close_pair_note_appears_exactly_when_one_hot_is_out_of_reach(lang):
    tied = next(seed for seed in SEEDS if softmax(16.0 * scores(seed)).max() < 0.9)
    clear = 0
    assert softmax(16.0 * scores(clear)).max() > 0.99
    at = open_page(PAGE, lang, folds=True)
    note = {"ja": "ワンホットにはなりません", "en": "no one-hot here"}[lang]
    assert note not in all_text(at)
    at.slider(key="sc_seed").set_value(tied).run()
    assert note in all_text(at)


def test_no_nonzero_weight_reads_zero_percent():
    assert pct_label(0.004, 0) == "<1%" and pct_label(0.0004) == "<0.1%"
    assert pct_label(0.0, 0) == "0%" and pct_label(0.006, 0) == "1%" and pct_label(0.5) == "50.0%"


@pytest.mark.parametrize("lang", LANGS)
def test_the_temperature_bars_name_their_top_token_or_tie(lang):
    n, it = len(PRONOUN.tokens), PRONOUN.index("それ")

    def claim(setting):
        w = attention(
            PRONOUN.queries, PRONOUN.vectors, PRONOUN.vectors, mask=causal_mask(n), temperature=setting["T"]
        )
        weights = w.weights[it]
        with in_lang(lang):
            labels = [gloss(tok) for tok in PRONOUN.tokens]
            alt = ranking.top_text("scaling.temperature.alt", labels, weights, escape=False, query=labels[it])
        return top_sentence(alt, labels, weights, lang)

    audit(claim, grid(T=np.round(np.arange(0.1, 5.01, 0.1), 1)))


def test_the_learner_predicts_what_doubling_t_does(lang):
    n, it = len(PRONOUN.tokens), PRONOUN.index("それ")
    q, keys = PRONOUN.queries[it], PRONOUN.vectors[: it + 1]
    rows = [softmax(keys @ q / (np.sqrt(4) * temperature)) for temperature in (1.0, 2.0)]
    bits = [float(-(p * np.log2(p)).sum()) for p in rows]
    assert rows[1].max() < rows[0].max() and bits[1] > bits[0]  # the weights flatten: option 0
    at = open_page(PAGE, lang)
    result = {"ja": "T = 1 では", "en": "At T = 1"}[lang]
    assert result not in all_text(at)
    at.radio(key="sc_predict").set_value(1).run()  # "they sharpen": wrong
    assert not at.exception, [e.value for e in at.exception]
    text = all_text(at)
    assert {"ja": "予想とは違いました", "en": "Not what you predicted"}[lang] in text
    assert f"{100 * rows[0].max():.1f}%" in text and f"{100 * rows[1].max():.1f}%" in text
    assert f"{bits[0]:.2f}" in text and f"{bits[1]:.2f}" in text
    at.radio(key="sc_predict").set_value(0).run()
    assert {"ja": "予想どおり", "en": "As you predicted"}[lang] in all_text(at)
    assert n == 10

"""Statement audit of the causal-mask lesson (tests/helpers/statement_audit.py): the
row named as leaking most, the tokens named as 猫's largest weights without a
mask, and the explorer's top sentence hold at every setting they depend on.

The numbers are recomputed here with lesson_core, as the page computes them."""

import pytest
from helpers.statement_audit import audit, grid, in_lang, ranked, top_sentence

from course_app import ranking, views
from course_app.i18n import LANGS, gloss
from lesson_core import causal_mask
from lesson_core import scaled_dot_product_attention as attention
from lesson_core.examples import DECODER, PRONOUN
from lesson_core.masking import MASK_FILLS, hidden_weight, sliding_window_mask
from lesson_core.ranking import tops

N = len(PRONOUN.tokens)
X = DECODER.vectors


@pytest.mark.parametrize("lang", LANGS)
def test_the_leak_sentence_names_the_row_that_leaks_most(lang):
    from lessons.causal_mask import parts

    allowed = causal_mask(len(DECODER.tokens))

    def claim(setting):
        weights = attention(X, X, X, mask=allowed, mask_fill=setting["fill"]).weights
        leaks = hidden_weight(weights, allowed)
        with in_lang(lang):
            text = parts.leak_note(DECODER.tokens, leaks, setting["fill"])
            names = [gloss(tok) for tok in DECODER.tokens]
        if not leaks.any():
            return None  # "no row leaks": no row is named
        best = tops(leaks, 100, 3)  # the leaks print with up to three decimals
        if len(best) > 1:
            return f"rows {best.tolist()} tie, the sentence names one"
        return None if names[best[0]] in text else f"{names[best[0]]} not named: {text!r}"

    audit(claim, grid(fill=MASK_FILLS))


def test_cat_without_a_mask_ranks_its_two_largest_right_keys_untied():
    # pronoun.body: without a mask 猫 spreads its weight, e.g. to {first} and {second}
    from lessons.causal_mask.page import C_OPEN, CAT, FIRST, RIGHT_OF_CAT, SECOND

    row = C_OPEN.weights[CAT, RIGHT_OF_CAT]
    first, second = (list(RIGHT_OF_CAT).index(i) for i in (FIRST, SECOND))
    assert ranked(row, [first, second]) is None
    assert [PRONOUN.tokens[i] for i in (FIRST, SECOND)] == ["食べた", "魚"]  # 29.1 % and 22.6 %


def masks():
    yield "none", None
    yield "causal", causal_mask(N)
    for window in range(1, N + 1):
        yield f"window {window}", sliding_window_mask(N, window)


@pytest.mark.parametrize("lang", LANGS)
def test_the_explorer_names_the_top_token_or_the_tie(lang):
    allowed = dict(masks())

    def claim(setting):
        mask = allowed[setting["mask"]]
        weights = attention(
            PRONOUN.queries, PRONOUN.vectors, PRONOUN.vectors, mask=mask, temperature=setting["T"]
        )
        row = weights.weights[setting["query"]]
        with in_lang(lang):
            labels = views.glossed_labels(PRONOUN.tokens)
            text = ranking.top_text(
                "ui.weights_summary", labels, row, query=labels[setting["query"]], total="1"
            )
        return top_sentence(text, labels, row, lang)

    audit(claim, grid(query=range(N), mask=list(allowed), T=(0.1, 1.0, 5.0)))

"""Layer 1: what lesson_core.capstone works out for the capstone page, against
numbers worked out by hand (the corpus's counts, the parameter formulas, the
training budget) or by a second, simpler computation."""

from __future__ import annotations

import numpy as np
import pytest

from lesson_core import capstone
from lesson_core.examples import CORPUS
from lesson_core.transformer import (
    EOS,
    MAX_TRAIN_WORK,
    Config,
    TrainResult,
    Vocab,
    init_params,
    next_token_distribution,
)

VOCAB = Vocab.from_sentences(CORPUS)


def untrained(seed: int = 0, **changes: np.ndarray) -> TrainResult:
    """A small model with random weights (no training needed to test the plumbing)."""
    config = Config(d_model=8, n_heads=2, n_blocks=1, steps=20)
    params = init_params(config, len(VOCAB), np.random.default_rng(seed))
    params["out.w"] = params["out.w"] * 100  # predictions that depend on the prefix
    params |= changes
    return TrainResult(params, VOCAB, config, np.array([3.0]), "finished", 1)


def by_token(p: np.ndarray) -> dict[str, float]:
    return {tok: float(p[i]) for i, tok in enumerate(VOCAB.tokens) if p[i] > 0}


# --- the configuration rules ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "low", "high", "step", "expected"),
    [
        (33, 8, 64, 8, 32),  # (33 - 8) / 8 = 3.1 -> 3 steps -> 32
        (37, 8, 64, 8, 40),  # 3.6 -> 4 steps
        (100, 8, 64, 8, 64),
        (-5, 8, 64, 8, 8),
        (37.4, 20, 600, 10, 40),
        (5, 20, 600, 1, 20),
        (-4, 0, 999, 1, 0),
        (1e9, 0, 999, 1, 999),
        (412.0, 0, 999, 1, 412),
    ],
)
def test_snap_rounds_to_the_grid_and_stays_in_range(value, low, high, step, expected):
    assert capstone.snap(value, low, high, step) == expected


def test_head_options_divide_the_width():
    assert capstone.head_options(8) == [1, 2, 4, 8]
    assert capstone.head_options(24) == [1, 2, 3, 4, 6, 8]
    assert capstone.head_options(56) == [1, 2, 4, 7, 8]
    for d in range(8, 65, 8):
        assert all(d % h == 0 for h in capstone.head_options(d))


def test_head_options_by_hand():
    assert capstone.head_options(40) == [1, 2, 4, 5, 8]
    assert capstone.head_options(48) == [1, 2, 3, 4, 6, 8]
    assert capstone.head_options(12, max_heads=12) == [1, 2, 3, 4, 6, 12]
    assert capstone.head_options(7, max_heads=6) == [1]


def test_nearest_heads_breaks_a_tie_towards_more_heads():
    assert capstone.nearest_heads([1, 2, 3, 4, 6, 8], 5) == 6  # 4 and 6 are both 1 away
    assert capstone.nearest_heads([1, 2, 4, 8], 3) == 4  # 2 and 4 are both 1 away
    assert capstone.nearest_heads([1, 2, 4, 5, 8], 7) == 8
    assert capstone.nearest_heads([1, 2, 4, 8], 4) == 4
    assert capstone.nearest_heads([1, 2, 4, 8], 100) == 8


def test_step_budget_by_hand():
    # one step costs n_blocks · d · (d + 32); the budget is 2·300·2·32·64 = 2,457,600
    assert MAX_TRAIN_WORK == 2_457_600
    big = capstone.step_budget(Config(d_model=64, n_heads=8, n_blocks=2, steps=600))
    assert big == capstone.StepBudget(over=True, max_steps=200)  # 2,457,600 / (2·64·96)
    # 2·56·88 = 9,856 per step: 249 steps fit, shown as 240 (the slider's step is 10)
    assert capstone.step_budget(Config(d_model=56, n_heads=8, n_blocks=2, steps=250)).max_steps == 240
    assert capstone.step_budget(Config(d_model=56, n_heads=8, n_blocks=2, steps=250)).over
    assert not capstone.step_budget(Config(d_model=56, n_heads=8, n_blocks=2, steps=240)).over
    # the defaults (300 steps, 2 blocks, width 32) use half of it: 600 steps would fit
    assert capstone.step_budget(Config()) == capstone.StepBudget(over=False, max_steps=600)


# --- what the model is made of -------------------------------------------------------------


@pytest.mark.parametrize(("d", "blocks", "v"), [(16, 2, 10), (32, 2, 24), (8, 1, 5)])
def test_parameter_groups_follow_the_formulas(d, blocks, v):
    found = capstone.parameter_groups(d, blocks, v)
    sizes = {g.part: (g.size, g.times) for g in found.groups}
    assert [g.part for g in found.groups] == ["embed", "ln", "attn", "ffn", "final_ln", "out"]
    assert sizes == {
        "embed": (v * d, 1),
        "ln": (2 * 2 * d, blocks),
        "attn": (4 * d * d, blocks),
        "ffn": (d * 4 * d + 4 * d + 4 * d * d + d, blocks),
        "final_ln": (2 * d, 1),
        "out": (d * v + v, 1),
    }
    assert found.total == sum(size * times for size, times in sizes.values())


def test_parameter_groups_shapes_and_a_total_by_hand():
    found = capstone.parameter_groups(16, 2, 10)
    # 160 + 2 · (64 + 1,024 + 2,128) + 32 + 170
    assert found.total == 6794
    shapes = {g.part: g.shapes for g in found.groups}
    assert shapes["attn"] == ((16, 16),) * 4
    assert shapes["ffn"] == ((16, 64), (64,), (64, 16), (16,))
    assert shapes["ln"] == ((16,),) * 4
    assert shapes["out"] == ((16, 10), (10,))


# --- predictions ----------------------------------------------------------------------------


def test_distributions_count_the_corpus_by_hand():
    found = capstone.distributions(untrained(), ("ねこ", "は"))
    assert isinstance(found, capstone.NextTokens) and found.prefix == ("ねこ", "は")
    # after ねこ は the corpus has ひるね, さかな, こたつ, ひなたぼっこ once each
    assert by_token(found.corpus) == pytest.approx(
        dict.fromkeys(("ひるね", "さかな", "こたつ", "ひなたぼっこ"), 0.25)
    )
    # the bigram sees only は: 11 tokens follow it in the corpus, いぬ twice
    once = ("ひるね", "さかな", "こたつ", "ひなたぼっこ", "さんぽ", "ボール", "ほね", "はしる", "ねこ")
    assert by_token(found.bigram) == pytest.approx(dict.fromkeys(once, 1 / 11) | {"いぬ": 2 / 11})
    assert [name for name, _ in found.series] == ["model", "bigram", "corpus"]


def test_distributions_of_a_first_word_and_a_whole_sentence():
    first = capstone.distributions(untrained(), ("ねこ",))
    # ねこ is followed by は 4 times, が twice, も once; a sentence starting with it by は 4, が 1, も 1
    assert by_token(first.bigram) == pytest.approx({"は": 4 / 7, "が": 2 / 7, "も": 1 / 7})
    assert by_token(first.corpus) == pytest.approx({"は": 4 / 6, "が": 1 / 6, "も": 1 / 6})
    whole = capstone.distributions(untrained(), ("きょう", "は", "いぬ", "と", "さんぽ"))
    assert by_token(whole.corpus) == {EOS: 1.0}
    assert by_token(whole.bigram) == pytest.approx({"が": 1 / 3, "を": 1 / 3, EOS: 1 / 3})


def test_distributions_model_part_is_the_models_own():
    result = untrained(3)
    found = capstone.distributions(result, ("いぬ", "は"))
    direct = next_token_distribution(result.params, result.config, result.vocab, ["いぬ", "は"])
    assert np.allclose(found.model, direct) and np.isclose(found.model.sum(), 1.0)


def test_apart_is_half_the_absolute_difference():
    def tokens(model, bigram, corpus):
        return capstone.NextTokens(("x",), np.array(model), np.array(bigram), np.array(corpus))

    a = tokens([0.5, 0.5, 0.0], [0.2, 0.8, 0.0], [1.0, 0.0, 0.0])
    b = tokens([0.0, 0.5, 0.5], [0.2, 0.8, 0.0], [0.0, 0.0, 1.0])
    assert capstone.apart(a, b) == capstone.Apart(model=0.5, bigram=0.0, corpus=1.0)
    c = tokens([0.25, 0.25, 0.5], [0.1, 0.1, 0.8], [1.0, 0.0, 0.0])
    assert capstone.apart(a, c) == pytest.approx(
        capstone.Apart(model=0.5, bigram=0.8, corpus=0.0)
    )  # ½(.25+.25+.5), ½(.1+.7+.8)


def test_cat_dog_tv():
    # a model whose scores do not look at the input predicts the same after any prefix
    blind = untrained(**{"out.w": np.zeros((8, len(VOCAB)))})
    assert capstone.cat_dog_tv(blind) == 0.0
    result = untrained(5)
    cat = next_token_distribution(result.params, result.config, result.vocab, ["ねこ", "は"])
    dog = next_token_distribution(result.params, result.config, result.vocab, ["いぬ", "は"])
    assert capstone.cat_dog_tv(result) == pytest.approx(
        sum(abs(p - q) for p, q in zip(cat, dog, strict=True)) / 2
    )
    assert 0.0 < capstone.cat_dog_tv(result) <= 1.0


def test_shown_tokens_keep_the_likely_ones_in_vocabulary_order():
    a = np.array([0.0, 0.5, 0.01, 0.3, 0.19])
    b = np.array([0.0, 0.0, 0.03, 0.0, 0.97])
    assert list(capstone.shown_tokens([a, b])) == [1, 2, 3, 4]
    many = np.full(30, 1 / 30)
    assert len(capstone.shown_tokens([many])) == capstone.SHOW_MAX


def test_shown_tokens_by_hand():
    p = np.array([0.05, 0.01, 0.3, 0.019, 0.621])
    assert list(capstone.shown_tokens([p])) == [0, 2, 4]  # >= 2 %
    assert list(capstone.shown_tokens([p], show_max=2)) == [2, 4]  # the two largest, in vocabulary order
    assert list(capstone.shown_tokens([p], show_min=0.01)) == [0, 1, 2, 3, 4]
    assert list(capstone.shown_tokens([np.zeros(4)])) == []


# --- where は looks ---------------------------------------------------------------------------


def test_look_back_finds_the_largest_weight_from_wa_to_the_token_before():
    tokens = ("いぬ", "は", "ほね", "が", "すき")  # with <s>: は at position 2, いぬ at 1
    maps = np.zeros((2, 3, 6, 6))
    maps[:, :, :, 0] = 1.0
    maps[1, 2, 2] = [0.1, 0.7, 0.2, 0, 0, 0]
    maps[0, 1, 2] = [0.5, 0.4, 0.1, 0, 0, 0]
    found = capstone.look_back(maps, tokens)
    assert found == capstone.LookBack(
        subject="いぬ", weight=0.7, block=2, head=3, even=1 / 3, places=((2, 3),)
    )
    assert capstone.look_back(maps, ("ねこ", "が", "ひるね", "を", "する")) is None


def test_look_back_later_wa_a_tie_and_a_leading_wa():
    tokens = ("きょう", "も", "は", "いい")  # は at position 3 (after <s>): four positions to spread over
    maps = np.zeros((1, 2, 5, 5))
    maps[0, :, 3] = [0.2, 0.2, 0.3, 0.3, 0.0]  # both heads give も 0.3: a tie, both named
    assert capstone.look_back(maps, tokens) == capstone.LookBack(
        subject="も", weight=0.3, block=1, head=1, even=0.25, places=((1, 1), (1, 2))
    )
    maps[0, 1, 3, 2] = 0.3004  # prints as 30.0% too: still a tie
    assert capstone.look_back(maps, tokens).places == ((1, 1), (1, 2))
    assert capstone.look_back(np.zeros((1, 1, 3, 3)), ("は", "ねこ")) is None  # no subject before it

"""Layer 1: sampling the next token (lesson_core.sampling), against cases worked
out by hand and with hypothesis properties; and generate() built on it."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lesson_core.sampling import (
    draw,
    greedy,
    nucleus_size,
    renormalise,
    sampling_stages,
    top_k_keep,
    top_p_keep,
    with_temperature,
)

LN = np.log(np.array([1.0, 2.0, 4.0]))  # softmax: 1/7, 2/7, 4/7


# --- temperature ----------------------------------------------------------------------


def test_temperature_on_three_tokens():
    assert with_temperature(LN, 1.0) == pytest.approx([1 / 7, 2 / 7, 4 / 7])
    # T = 2: e^{z/2} = 1, √2, 2
    r2 = math.sqrt(2)
    assert with_temperature(LN, 2.0) == pytest.approx([1 / (3 + r2), r2 / (3 + r2), 2 / (3 + r2)])
    # T = 0.5: e^{2z} = 1, 4, 16
    assert with_temperature(LN, 0.5) == pytest.approx([1 / 21, 4 / 21, 16 / 21])
    assert with_temperature(LN, 0.0).tolist() == [0.0, 0.0, 1.0]


def test_greedy_takes_the_first_of_a_tie_at_every_stage():
    z = np.array([1.0, 3.0, 3.0, 2.0])
    assert greedy(z) == 1
    assert with_temperature(z, 0).tolist() == [0.0, 1.0, 0.0, 0.0]
    stages = sampling_stages(z, 0.0, 4, 1.0, np.random.default_rng(0))
    assert stages.drawn == 1 and stages.greedy and stages.n_kept == 1


def test_a_tiny_temperature_does_not_overflow():
    p = with_temperature(np.array([0.0, 1.0, 2.0]), 1e-300)
    assert p.tolist() == [0.0, 0.0, 1.0]


# --- top-k ----------------------------------------------------------------------------

P5 = np.array([0.4, 0.2, 0.2, 0.1, 0.1])


@pytest.mark.parametrize(
    ("k", "kept"),
    [(1, [0]), (2, [0, 1, 2]), (3, [0, 1, 2]), (4, [0, 1, 2, 3, 4]), (5, [0, 1, 2, 3, 4])],
)
def test_top_k_keeps_every_token_tied_with_the_kth(k, kept):
    assert np.flatnonzero(top_k_keep(P5, k)).tolist() == kept


def test_top_k_never_keeps_a_token_of_probability_zero():
    assert np.flatnonzero(top_k_keep(np.array([0.0, 1.0, 0.0]), 3)).tolist() == [1]


# --- top-p ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "kept"),
    [
        (0.05, [0]),
        (0.5, [0]),  # exactly the first cumulative mass: stops there
        (0.51, [0, 1]),
        (0.8, [0, 1]),  # exactly 0.5 + 0.3
        (0.8000001, [0, 1, 2]),
        (1.0, [0, 1, 2]),
    ],
)
def test_top_p_boundaries(p, kept):
    assert np.flatnonzero(top_p_keep(np.array([0.5, 0.3, 0.2]), p)).tolist() == kept


def test_top_p_at_a_mass_that_rounds_below_p():
    # 0.7 + 0.2 is 0.8999999999999999 in floating point: it still reaches 0.9
    assert np.flatnonzero(top_p_keep(np.array([0.7, 0.2, 0.1]), 0.9)).tolist() == [0, 1]


def test_top_p_keeps_a_tie_at_its_boundary_and_one_never_keeps_zeros():
    assert np.flatnonzero(top_p_keep(np.array([0.4, 0.3, 0.3]), 0.5)).tolist() == [0, 1, 2]
    assert np.flatnonzero(top_p_keep(np.array([0.5, 0.5, 0.0]), 1.0)).tolist() == [0, 1]


@pytest.mark.parametrize(("p", "size"), [(0.5, 1), (0.6, 2), (0.75, 2), (0.76, 3), (1.0, 3)])
def test_nucleus_size_before_the_ties_join(p, size):
    # 0.5, 0.25, 0.25: 0.6 needs two tokens (0.75), and top-p keeps the third, tied with the second
    q = np.array([0.5, 0.25, 0.25, 0.0])
    assert nucleus_size(q, p) == size
    assert np.count_nonzero(top_p_keep(q, p)) == (1 if size == 1 else 3)


def test_top_p_reads_what_top_k_kept_renormalised():
    z = np.log(np.array([0.4, 0.3, 0.2, 0.1]))
    rng = np.random.default_rng(0)
    # top-k = 2 leaves 4/7 and 3/7: p = 0.5 needs one token, p = 0.6 both
    one = sampling_stages(z, 1.0, 2, 0.5, rng)
    assert one.kept.tolist() == [True, False, False, False] and one.greedy and one.drawn == 0
    both = sampling_stages(z, 1.0, 2, 0.6, rng)
    assert both.kept.tolist() == [True, True, False, False]
    assert both.final == pytest.approx([4 / 7, 3 / 7, 0, 0])
    assert both.kept_mass == pytest.approx(0.7)
    assert both.raw == pytest.approx([0.4, 0.3, 0.2, 0.1])


def test_renormalise():
    p = np.array([0.4, 0.3, 0.2, 0.1])
    assert renormalise(p, np.array([True, True, False, False])) == pytest.approx([4 / 7, 3 / 7, 0, 0])
    assert renormalise(p, np.ones(4, bool)).tolist() == p.tolist()


def test_a_single_kept_token_is_drawn_without_the_generator():
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    assert draw(np.array([0.0, 1.0, 0.0]), rng) == 1
    assert rng.bit_generator.state == before


def test_a_minus_infinite_logit_is_never_kept():
    stages = sampling_stages(np.array([-np.inf, 0.0, 0.0]), 1.0, 3, 1.0, np.random.default_rng(0))
    assert stages.raw[0] == 0 and not stages.kept[0] and stages.n_kept == 2


@pytest.mark.parametrize(
    ("args", "word"),
    [
        ((-0.1, 3, 1.0), "temperature"),
        ((float("nan"), 3, 1.0), "temperature"),
        ((float("inf"), 3, 1.0), "temperature"),
        ((True, 3, 1.0), "temperature"),
        ((1.0, 0, 1.0), "top_k"),
        ((1.0, 4, 1.0), "top_k"),
        ((1.0, 2.0, 1.0), "top_k"),
        ((1.0, 3, 0.0), "top_p"),
        ((1.0, 3, 1.5), "top_p"),
        ((1.0, 3, float("nan")), "top_p"),
    ],
)
def test_bad_arguments_are_refused(args, word):
    with pytest.raises(ValueError, match=word):
        sampling_stages(LN, *args, np.random.default_rng(0))


@pytest.mark.parametrize("logits", [[np.nan, 0.0], [np.inf, 0.0], [-np.inf, -np.inf], []])
def test_bad_logits_are_refused(logits):
    with pytest.raises(ValueError, match="logit"):
        sampling_stages(np.array(logits), 1.0, 1, 1.0, np.random.default_rng(0))


# --- properties -----------------------------------------------------------------------

# logits on a coarse grid, so that ties (at the top, at the cut) are common
logit_vectors = st.lists(
    st.sampled_from([-np.inf, -4.0, -1.0, 0.0, 0.5, 2.0, 3.0]), min_size=1, max_size=10
).filter(lambda z: any(np.isfinite(z)))
settings_ = st.tuples(
    st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.0]) | st.floats(0.0, 5.0),
    st.integers(1, 10),
    st.sampled_from([0.05, 0.5, 1.0]) | st.floats(1e-6, 1.0),
    st.integers(0, 2**32 - 1),
)


@given(logit_vectors, settings_)
def test_stage_properties(z, setting):
    temperature, k, p, seed = setting
    z = np.array(z)
    k = min(k, len(z))
    s = sampling_stages(z, temperature, k, p, np.random.default_rng(seed))
    # what top-p keeps holds at least p of what top-k kept, and is the smallest such set of whole ties
    kept_share = s.tempered[s.kept].sum() / s.tempered[s.top_k].sum()
    assert kept_share >= p - 1e-9
    smaller = s.kept & (s.tempered > s.tempered[s.kept].min())
    assert not smaller.any() or s.tempered[smaller].sum() / s.tempered[s.top_k].sum() < p + 1e-9
    assert not (s.kept & ~s.top_k).any()
    assert s.final.sum() == pytest.approx(1.0) and (s.final[~s.kept] == 0).all()
    assert (s.final[s.kept] > 0).all() and s.kept[s.drawn]
    assert s.kept_mass == pytest.approx(s.tempered[s.kept].sum())
    assert s.raw.sum() == pytest.approx(1.0) and s.tempered.sum() == pytest.approx(1.0)
    if temperature == 0:
        assert s.greedy and s.drawn == int(np.argmax(z)) and s.tempered[s.drawn] == 1
    # the nucleus before ties: the fewest likeliest that reach p; one fewer does not
    q = np.sort(np.where(s.top_k, s.tempered, 0) / s.tempered[s.top_k].sum())[::-1]
    n = nucleus_size(q, p)
    assert q[:n].sum() >= p - 1e-9 and (p == 1 or n == 1 or q[: n - 1].sum() < p)
    assert n <= s.n_kept


@given(logit_vectors, st.floats(0.0, 5.0), st.integers(0, 2**32 - 1))
def test_top_k_one_is_the_greedy_choice(z, temperature, seed):
    z = np.array(z)
    s = sampling_stages(z, temperature, 1, 1.0, np.random.default_rng(seed))
    top = np.flatnonzero(z == z.max())
    assert s.drawn in top
    if len(top) == 1 or temperature == 0:
        assert s.greedy and s.drawn == greedy(z)


@given(logit_vectors, settings_)
def test_draws_only_from_kept_tokens(z, setting):
    temperature, k, p, seed = setting
    z = np.array(z)
    k = min(k, len(z))
    rng = np.random.default_rng(seed)
    first = sampling_stages(z, temperature, k, p, rng)
    drawn = {sampling_stages(z, temperature, k, p, rng).drawn for _ in range(20)}
    assert drawn <= set(np.flatnonzero(first.kept).tolist())


# --- generate() on top of it ----------------------------------------------------------


def test_generate_uses_top_k_and_top_p():
    from lesson_core.examples import CORPUS
    from lesson_core.transformer import BOS, Config, Vocab, generate, init_params, next_token_stages

    config = Config(d_model=8, n_heads=2, n_blocks=1)
    vocab = Vocab.from_sentences(CORPUS)
    params = init_params(config, len(vocab), np.random.default_rng(0))
    plain = generate(params, config, vocab, ["ねこ"], 0.0, np.random.default_rng(0))
    for seed in range(3):  # top-k = 1 and a tiny top-p are greedy at any temperature (no ties here)
        rng = np.random.default_rng(seed)
        assert generate(params, config, vocab, ["ねこ"], 2.0, rng, top_k=1) == plain
        assert generate(params, config, vocab, ["ねこ"], 1.0, rng, top_p=1e-9) == plain
    # the defaults are "off": the same draws as top-k = V and top-p = 1
    same = [generate(params, config, vocab, [], 1.0, np.random.default_rng(s)) for s in range(3)]
    off = [
        generate(params, config, vocab, [], 1.0, np.random.default_rng(s), 12, len(vocab), 1.0)
        for s in range(3)
    ]
    assert same == off
    step = next_token_stages(params, config, vocab, ["ねこ"], 1.0, len(vocab), 1.0, np.random.default_rng(0))
    assert step.raw[vocab.index(BOS)] == 0 and step.n_kept == len(vocab) - 1
    for bad in ({"top_k": 0}, {"top_k": len(vocab) + 1}, {"top_p": 0.0}, {"top_p": float("nan")}):
        with pytest.raises(ValueError, match="top_"):
            generate(params, config, vocab, ["ねこ"], 1.0, np.random.default_rng(0), **bad)

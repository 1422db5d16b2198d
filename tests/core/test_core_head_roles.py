"""Layer 1: what each head of the capstone's mini GPT does (lesson_core.head_roles),
against weight matrices made by hand whose scores are worked out here, the
threshold at its boundary as printed, ties, a sentence without は, and a
property: every score is a weight in [0, 1]."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lesson_core import head_roles as hr
from lesson_core.capstone import wa_position
from lesson_core.examples import CORPUS

CAT = ("ねこ", "は", "さかな", "が", "すき")  # with <s>: は at 2, ねこ at 1; six positions
NO_WA = ("ねこ", "が", "ひるね", "を", "する")


def causal_rows(rows: list[list[float]]) -> np.ndarray:
    """A square matrix from its rows (each given up to the diagonal), checked causal."""
    n = len(rows)
    weights = np.zeros((n, n))
    for i, row in enumerate(rows):
        assert len(row) == i + 1 and abs(sum(row) - 1) < 1e-12
        weights[i, : i + 1] = row
    return weights


def looking(n: int, offset: int | None) -> np.ndarray:
    """Every position i >= 1 puts all its weight on i − offset, or on <s> when that
    is before the start (offset None: always on <s>)."""
    weights = np.zeros((n, n))
    weights[0, 0] = 1.0
    for i in range(1, n):
        weights[i, 0 if offset is None else max(i - offset, 0)] = 1.0
    return weights


def test_wa_position_is_the_first_wa_after_a_subject():
    assert wa_position(CAT) == 2
    assert wa_position(("きょう", "も", "は", "いい")) == 3
    assert wa_position(NO_WA) is None
    assert wa_position(("は", "ねこ")) is None  # は first: no subject before it
    assert wa_position(("は", "ねこ", "は")) == 3


def test_scores_of_a_hand_made_head():
    weights = causal_rows(
        [
            [1.0],
            [0.6, 0.4],
            [0.1, 0.7, 0.2],
            [0.2, 0.2, 0.5, 0.1],
            [0.0, 0.1, 0.1, 0.4, 0.4],
            [0.5, 0.0, 0.0, 0.0, 0.3, 0.2],
        ]
    )
    scores = hr.head_scores(weights, CAT)
    # over positions 1 … 5, worked out by hand
    assert scores.previous == pytest.approx((0.6 + 0.7 + 0.5 + 0.4 + 0.3) / 5)  # 0.5
    assert scores.first == pytest.approx((0.6 + 0.1 + 0.2 + 0.0 + 0.5) / 5)  # 0.28
    assert scores.itself == pytest.approx((0.4 + 0.2 + 0.1 + 0.4 + 0.2) / 5)  # 0.26
    assert scores.subject == pytest.approx(0.7)  # は (2) -> ねこ (1)
    # previous 50.0% and subject 70.0% both reach 50.0%: the larger names it
    assert hr.named_patterns(scores) == ("subject",)
    assert hr.head_role(weights, NO_WA).patterns == ("previous",)  # no は: only three scores
    assert hr.head_scores(weights, NO_WA).subject is None


@pytest.mark.parametrize(
    ("offset", "expected"),
    [(1, ("subject", "previous")), (0, ("itself",)), (None, ("first",))],
)
def test_pure_heads_are_named_after_their_pattern(offset, expected):
    role = hr.head_role(looking(6, offset), CAT)
    defined = role.scores.defined()
    if offset == 1:  # all on the previous token: previous 100%, and は -> ねこ 100%: a tie, both named
        assert defined == {"previous": 1.0, "first": 0.2, "itself": 0.0, "subject": 1.0}
        assert set(role.patterns) == {"previous", "subject"} and role.patterns == ("previous", "subject")
    else:
        assert role.patterns == expected
    assert not role.mixed


def test_an_even_spread_is_mixed():
    n = 6
    weights = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    role = hr.head_role(weights, CAT)
    # previous = first = itself = mean of 1/(i+1) over i = 1 … 5 = (1/2 + … + 1/6) / 5 ≈ 0.290
    mean = sum(1 / (i + 1) for i in range(1, n)) / 5
    assert role.scores.previous == role.scores.first == role.scores.itself == pytest.approx(mean)
    assert role.scores.subject == pytest.approx(1 / 3)
    assert role.patterns == () and role.mixed


@pytest.mark.parametrize(
    ("subject", "named"),
    [(0.5, True), (0.4996, True), (0.4994, False), (0.49, False)],  # 49.96% prints 50.0%, 49.94% 49.9%
)
def test_the_threshold_is_read_as_printed(subject, named):
    scores = hr.HeadScores(previous=0.2, first=0.3, itself=0.1, subject=subject)
    assert hr.THRESHOLD == 0.5
    assert hr.named_patterns(scores) == (("subject",) if named else ())
    assert hr.named_patterns(scores, threshold=0.6) == ()


def test_ties_at_the_top_name_every_tied_pattern():
    tie = hr.HeadScores(previous=0.55, first=0.55, itself=0.0, subject=None)
    assert hr.named_patterns(tie) == ("previous", "first")
    near = hr.HeadScores(previous=0.5504, first=0.5496, itself=0.0, subject=0.2)  # both print 55.0%
    assert hr.named_patterns(near) == ("previous", "first")
    apart = hr.HeadScores(previous=0.5506, first=0.5494, itself=0.0, subject=0.2)  # 55.1% > 54.9%
    assert hr.named_patterns(apart) == ("previous",)


def test_a_two_position_sentence_ties_previous_and_first():
    """At position 1 the previous token is <s>: one weight is both scores."""
    weights = causal_rows([[1.0], [0.8, 0.2]])
    role = hr.head_role(weights, ("ねこ",))
    assert (role.scores.previous, role.scores.first, role.scores.itself) == (0.8, 0.8, 0.2)
    assert role.scores.subject is None and role.patterns == ("previous", "first")


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError):
        hr.head_scores(np.ones((1, 1)), ())
    with pytest.raises(ValueError):
        hr.head_scores(np.eye(4), CAT)


def test_head_roles_covers_every_block_and_head():
    maps = np.stack([np.stack([looking(6, 1), looking(6, None)]), np.stack([looking(6, 0), looking(6, 2)])])
    roles = hr.head_roles(maps, CAT)
    assert [[r.patterns for r in block] for block in roles] == [
        [("previous", "subject"), ("first",)],
        [("itself",), ()],  # two back: at は that is <s>, elsewhere neither previous, first nor self
    ]


def test_subject_heads_average_over_sentences_with_wa():
    sentences = (CAT, NO_WA, ("きょう", "も", "は", "いい"))
    maps = []
    for s, weights in zip(sentences, (0.9, 0.0, 0.3), strict=True):
        n = len(s) + 1
        m = np.zeros((1, 2, n, n))
        m[:, :, :, 0] = 1.0
        w = wa_position(s)
        if w is not None:
            m[0, 0, w] = 0.0
            m[0, 0, w, w - 1] = weights
            m[0, 0, w, 0] = 1 - weights
            m[0, 1, w] = 0.0
            m[0, 1, w, w - 1] = 0.5
            m[0, 1, w, w] = 0.5
        maps.append(m)
    found = hr.subject_heads_of(maps, sentences)
    assert found.sentences == 2  # the sentence without は is left out
    assert found.mean == pytest.approx(np.array([[(0.9 + 0.3) / 2, 0.5]]))
    assert found.places == ((1, 1),) and found.best == pytest.approx(0.6)
    assert found.weight(1, 2) == pytest.approx(0.5)
    assert hr.subject_heads_of(maps[1:2], sentences[1:2]) is None


def test_subject_heads_keep_a_tie_as_printed():
    n = len(CAT) + 1
    m = np.zeros((2, 2, n, n))
    m[:, :, :, 0] = 1.0
    m[:, :, 2] = 0.0
    m[:, :, 2, 1] = [[0.4, 0.8], [0.80004, 0.1]]  # 80.0% and 80.0%: a tie
    m[:, :, 2, 0] = 1 - m[:, :, 2, 1]
    assert hr.subject_heads_of([m], [CAT]).places == ((1, 2), (2, 1))


def test_subject_heads_of_a_trained_model_reads_the_corpus():
    """Every corpus sentence's maps, in the corpus's order: 11 of its 14 have は after a subject."""
    from lesson_core.transformer import Config, TrainResult, Vocab, init_params

    vocab = Vocab.from_sentences(CORPUS)
    config = Config(d_model=8, n_heads=2, n_blocks=2, steps=20)
    params = init_params(config, len(vocab), np.random.default_rng(3))
    result = TrainResult(params, vocab, config, np.array([3.0]), "finished", 1)
    found = hr.subject_heads(result)
    assert found.sentences == sum(wa_position(s) is not None for s in CORPUS) == 11
    assert found.mean.shape == (2, 2)
    printed = [[f"{100 * x:.1f}" for x in row] for row in found.mean]
    best = f"{100 * found.best:.1f}"
    assert found.places == tuple((b + 1, h + 1) for b in range(2) for h in range(2) if printed[b][h] == best)


@st.composite
def attention_map(draw):
    """A random causal attention map over CAT or NO_WA: each row a softmax of its visible scores."""
    tokens = draw(st.sampled_from([CAT, NO_WA, ("ねこ",), ("いぬ", "は")]))
    n = len(tokens) + 1
    scores = np.array(draw(st.lists(st.floats(-30, 30), min_size=n * n, max_size=n * n))).reshape(n, n)
    scores = np.where(np.tril(np.ones((n, n), bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return tokens, weights / weights.sum(axis=1, keepdims=True)


@given(attention_map())
def test_scores_are_weights_in_0_1(case):
    tokens, weights = case
    role = hr.head_role(weights, tokens)
    values = list(role.scores.defined().values())
    assert all(0.0 <= v <= 1.0 for v in values)
    # previous + first + self share each row's weight: at most 1 per row, plus the
    # one weight (position 1's on <s>) that counts as both previous and first
    s = role.scores
    assert s.previous + s.first + s.itself <= 1 + 1 / len(tokens) + 1e-9
    assert set(role.patterns) <= set(hr.PATTERNS)
    assert all(role.scores.defined()[p] >= 0.4995 for p in role.patterns)

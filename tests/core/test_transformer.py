"""Layer 1: the capstone's mini GPT (lesson_core.transformer).

Gradients against finite differences, hand-computed pieces, packing, the
training loop's statuses, and the point of the lesson: trained on corpus F it
tells ねこ は from いぬ は, which the bigram cannot.
"""

import math
from collections import Counter, defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lesson_core.bigram import fit_bigram, normalize, prefix_next_counts, total_variation
from lesson_core.examples import CORPUS
from lesson_core.transformer import (
    BOS,
    EOS,
    LOSS_TARGET,
    Config,
    Vocab,
    adam_step,
    attention_maps,
    cross_entropy,
    forward,
    gelu,
    gelu_grad,
    generate,
    init_params,
    layer_norm,
    loss_and_grads,
    make_batch,
    next_token_distribution,
    pack,
    train,
    unpack,
)

CAT_OBJECTS = ("ひるね", "さかな", "こたつ", "ひなたぼっこ")
DOG_OBJECTS = ("さんぽ", "ボール", "ほね", "はしる")


@pytest.fixture(scope="module")
def trained():
    return train()  # the defaults, on corpus F


def _params_finite(params):
    return all(np.isfinite(a).all() for a in params.values())


# --- hand-computed pieces -------------------------------------------------------------


def test_vocab_puts_begin_and_end_first():
    vocab = Vocab.from_sentences([["a", "b"], ["b", "c"]])
    assert vocab.tokens == (BOS, EOS, "a", "b", "c")
    np.testing.assert_array_equal(vocab.encode(["c", BOS]), [4, 0])
    assert vocab.decode([2, 1]) == ("a", EOS)
    with pytest.raises(ValueError, match="zzz"):
        vocab.encode(["a", "zzz"])


def test_make_batch_packs_sentences_behind_a_block_diagonal_causal_mask():
    vocab = Vocab.from_sentences([["a", "b"], ["c"]])  # <s>=0 </s>=1 a=2 b=3 c=4
    batch = make_batch([["a", "b"], ["c"]], vocab)
    np.testing.assert_array_equal(batch.inputs, [0, 2, 3, 0, 4])
    np.testing.assert_array_equal(batch.targets, [2, 3, 1, 4, 1])
    np.testing.assert_array_equal(batch.positions, [0, 1, 2, 0, 1])
    expected = np.zeros((5, 5), dtype=bool)
    expected[:3, :3] = np.tril(np.ones((3, 3), dtype=bool))
    expected[3:, 3:] = np.tril(np.ones((2, 2), dtype=bool))
    np.testing.assert_array_equal(batch.mask, expected)


def test_make_batch_rejects_empty_corpus():
    vocab = Vocab.from_sentences([["a"]])
    for bad in ([], [["a"], []]):
        with pytest.raises(ValueError, match="sentence"):
            make_batch(bad, vocab)


def test_layer_norm_hand_computed():
    # [1, 2, 3]: mean 2, variance 2/3 -> (x - 2) / sqrt(2/3 + eps) ≈ [-1.2247, 0, 1.2247]
    y, _, _ = layer_norm(np.array([[1.0, 2.0, 3.0]]), np.array([2.0, 2.0, 2.0]), np.array([0.0, 1.0, 0.0]))
    np.testing.assert_allclose(y, [[-2.449480, 1.0, 2.449480]], atol=1e-5)


def test_gelu_values_and_derivative():
    np.testing.assert_allclose(gelu(np.array([0.0, 10.0, -10.0])), [0.0, 10.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(gelu(np.array([1.0])), [0.841192], atol=1e-6)  # tanh form of GELU(1)
    u, h = np.linspace(-4, 4, 41), 1e-6
    np.testing.assert_allclose(gelu_grad(u), (gelu(u + h) - gelu(u - h)) / (2 * h), atol=1e-8)


def test_first_adam_step_moves_every_weight_by_the_learning_rate():
    # Step 1: m̂ = g and v̂ = g², so each weight moves by lr · g / (|g| + ε) ≈ lr · sign(g).
    params, grads = {"w": np.array([1.0, 1.0, 1.0])}, {"w": np.array([0.5, -3.0, 1e-3])}
    zeros = {"w": np.zeros(3)}
    new, m, v = adam_step(params, grads, zeros, zeros, step=1, learning_rate=0.1)
    np.testing.assert_allclose(new["w"], [0.9, 1.1, 0.9], atol=1e-6)
    np.testing.assert_allclose(m["w"], 0.1 * grads["w"])
    np.testing.assert_allclose(v["w"], 0.001 * grads["w"] ** 2)


def test_cross_entropy_hand_computed():
    # Two positions: logits (0, 0) -> p = (1/2, 1/2); logits (ln 3, 0) -> p = (3/4, 1/4).
    logits, targets = np.array([[0.0, 0.0], [math.log(3.0), 0.0]]), np.array([0, 1])
    loss, log_p = cross_entropy(logits, targets)
    assert loss == pytest.approx((math.log(2.0) + math.log(4.0)) / 2)
    np.testing.assert_allclose(np.exp(log_p), [[0.5, 0.5], [0.75, 0.25]])


# --- the backward pass ----------------------------------------------------------------


@pytest.mark.slow  # a finite difference for every weight: seconds
def test_gradients_of_every_parameter_match_finite_differences():
    config = Config(d_model=8, n_heads=2, n_blocks=2)
    corpus = [CORPUS[0], CORPUS[4], CORPUS[12]]
    vocab = Vocab.from_sentences(corpus)
    batch = make_batch(corpus, vocab)
    rng = np.random.default_rng(7)
    # Move every weight away from its tidy starting value (gains 1, biases 0, tiny out.w).
    params = {k: a + rng.normal(0.0, 0.3, a.shape) for k, a in init_params(config, len(vocab), rng).items()}
    _, grads = loss_and_grads(params, batch, config)
    assert set(grads) == set(params)
    h, worst = 1e-6, 0.0
    for name, value in params.items():
        numeric = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            plus, minus = value.copy(), value.copy()
            plus[idx] += h
            minus[idx] -= h
            up = loss_and_grads(params | {name: plus}, batch, config)[0]
            down = loss_and_grads(params | {name: minus}, batch, config)[0]
            numeric[idx] = (up - down) / (2 * h)
        assert grads[name].shape == value.shape
        assert np.abs(numeric).max() > 1e-6, name  # the check must see a real gradient
        error = np.linalg.norm(grads[name] - numeric) / (
            np.linalg.norm(grads[name]) + np.linalg.norm(numeric)
        )
        assert error < 1e-5, (name, error)
        worst = max(worst, error)
    assert worst < 1e-5


# --- forward ----------------------------------------------------------------------------


def test_forward_and_attention_map_shapes():
    config = Config(d_model=16, n_heads=4, n_blocks=2)
    vocab = Vocab.from_sentences(CORPUS)
    params = init_params(config, len(vocab), np.random.default_rng(0))
    logits, cache = forward(params, vocab.encode([BOS, "ねこ", "は"]), config)
    assert logits.shape == (3, len(vocab))
    assert len(cache.blocks) == 2 and cache.blocks[0].weights.shape == (4, 3, 3)
    maps = attention_maps(params, config, vocab, ["ねこ", "は", "さかな"])
    assert maps.shape == (2, 4, 4, 4)  # blocks, heads, n, n with n counting <s>
    np.testing.assert_allclose(maps.sum(axis=-1), 1.0)
    assert np.all(np.triu(maps, k=1) == 0.0)  # nobody sees the future
    p = next_token_distribution(params, config, vocab, ["ねこ", "は"])
    assert p.shape == (len(vocab),)
    np.testing.assert_allclose(p.sum(), 1.0)
    # "<s>" is added once, whether or not the caller already wrote it.
    np.testing.assert_allclose(p, next_token_distribution(params, config, vocab, [BOS, "ねこ", "は"]))


def test_packed_batch_equals_each_sentence_alone():
    config = Config(d_model=16, n_heads=2, n_blocks=2)
    vocab = Vocab.from_sentences(CORPUS)
    params = init_params(config, len(vocab), np.random.default_rng(3))
    batch = make_batch(CORPUS[:4], vocab)
    packed, _ = forward(params, batch.inputs, config, batch.positions, batch.mask)
    alone = np.concatenate([forward(params, vocab.encode([BOS, *s]), config)[0] for s in CORPUS[:4]])
    np.testing.assert_allclose(packed, alone, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(sorted({t for s in CORPUS for t in s})), max_size=12))
def test_untrained_predictions_are_distributions(prefix):
    config = Config(d_model=8, n_heads=2, n_blocks=1)
    vocab = Vocab.from_sentences(CORPUS)
    p = next_token_distribution(
        init_params(config, len(vocab), np.random.default_rng(0)), config, vocab, prefix
    )
    assert np.all(np.isfinite(p)) and np.all(p >= 0)
    np.testing.assert_allclose(p.sum(), 1.0)


# --- configuration ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"d_model": 30, "n_heads": 4}, "divide"),
        ({"d_model": 7, "n_heads": 1}, "even"),
        ({"d_model": 0}, "d_model"),
        ({"n_heads": 0}, "n_heads"),
        ({"n_blocks": 0}, "n_blocks"),
        ({"n_blocks": 2.0}, "integer"),
        ({"steps": 0}, "steps"),
        ({"steps": True}, "integer"),
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"learning_rate": float("nan")}, "learning_rate"),
        ({"learning_rate": float("inf")}, "learning_rate"),
        ({"learning_rate": "0.1"}, "learning_rate"),
        ({"seed": -1}, "seed"),
        ({"clip_norm": -1.0}, "clip_norm"),
        ({"blowup_factor": 0.0}, "blowup_factor"),
    ],
)
def test_invalid_configs_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Config(**kwargs)


def test_defaults_are_valid_and_small():
    config = Config()
    assert config.d_model % config.n_heads == 0 and 1 <= config.n_blocks <= 2
    assert config.d_ff == 4 * config.d_model


# --- training ---------------------------------------------------------------------------


def test_training_is_deterministic_for_a_seed():
    a, b = (train(config=Config(steps=5, seed=4)) for _ in range(2))
    c = train(config=Config(steps=5, seed=5))
    np.testing.assert_array_equal(a.losses, b.losses)
    for name in a.params:
        np.testing.assert_array_equal(a.params[name], b.params[name])
    assert not np.array_equal(a.losses, c.losses)


def test_callback_sees_every_step_and_can_stop_training():
    seen = []

    def callback(step, loss):
        seen.append((step, loss))
        return step < 5

    result = train(config=Config(steps=50), callback=callback)
    assert result.status == "stopped" and result.step == 5
    assert [s for s, _ in seen] == [1, 2, 3, 4, 5]
    np.testing.assert_allclose(result.losses, [loss for _, loss in seen])


def test_a_learning_rate_that_blows_up_is_reported_without_nan():
    result = train(config=Config(learning_rate=1.0, steps=100))
    assert result.status == "diverged"
    assert 1 < result.step < 100 and len(result.losses) == result.step - 1
    assert np.all(np.isfinite(result.losses)) and _params_finite(result.params)
    assert result.target_step is None and not result.reached_target
    # The kept weights are the last ones whose loss was still fine: still usable.
    p = next_token_distribution(result.params, result.config, result.vocab, ["ねこ", "は"])
    assert np.all(np.isfinite(p))


def test_loss_target_proves_the_split():
    # Best possible mean loss: the entropy of the next token given the whole prefix. A model
    # that gives "ねこ は" and "いぬ は" the same distribution can at best pool their counts.
    def best_loss(merge):
        counts = defaultdict(Counter)
        for sentence in CORPUS:
            ids = (BOS, *sentence, EOS)
            for i in range(1, len(ids)):
                prefix = ids[:i]
                if merge and len(prefix) == 3 and prefix[1] in ("ねこ", "いぬ") and prefix[2] == "は":
                    prefix = (BOS, "animal", "は")
                counts[prefix][ids[i]] += 1
        total = sum(sum(c.values()) for c in counts.values())
        nats = -sum(k * math.log(k / sum(c.values())) for c in counts.values() for k in c.values())
        return nats / total

    assert best_loss(merge=False) < LOSS_TARGET < best_loss(merge=True)
    assert round(best_loss(merge=False), 3) == 0.435 and round(best_loss(merge=True), 3) == 0.500


def test_default_training_reaches_the_target(trained):
    assert trained.status == "finished" and trained.step == Config().steps
    assert trained.reached_target and trained.final_loss <= LOSS_TARGET
    assert trained.losses[0] > 2 * LOSS_TARGET  # it did have to learn
    assert np.all(np.isfinite(trained.losses)) and _params_finite(trained.params)
    assert trained.seconds_to_target is not None and trained.seconds_to_target <= trained.seconds


def test_trained_model_tells_cat_from_dog_but_the_bigram_cannot(trained):
    params, config, vocab = trained.params, trained.config, trained.vocab
    cat = next_token_distribution(params, config, vocab, ["ねこ", "は"])
    dog = next_token_distribution(params, config, vocab, ["いぬ", "は"])
    assert total_variation(cat, dog) >= 0.5
    objects = lambda p, words: sum(p[vocab.index(w)] for w in words)  # noqa: E731
    assert objects(cat, CAT_OBJECTS) > 0.8 and objects(dog, DOG_OBJECTS) > 0.8
    # What the corpus says follows each prefix (the transformer gets close to it).
    for prefix, p in ((["ねこ", "は"], cat), (["いぬ", "は"], dog)):
        corpus_p = normalize(prefix_next_counts(CORPUS, prefix, vocab.tokens))
        assert total_variation(p, corpus_p) < 0.2
    # The bigram sees only the last token, は, so both prefixes get one and the same row.
    bigram = fit_bigram(CORPUS)
    after_cat, after_dog = (
        bigram.next_distribution(prefix[-1]) for prefix in (["ねこ", "は"], ["いぬ", "は"])
    )
    np.testing.assert_array_equal(after_cat, after_dog)
    assert total_variation(after_cat, after_dog) == 0.0
    assert after_cat[bigram.index("ひるね")] > 0 and after_cat[bigram.index("さんぽ")] > 0


def test_trained_attention_looks_back_at_the_subject(trained):
    # Some head, at は, puts most of its weight on the animal one position back.
    maps = attention_maps(trained.params, trained.config, trained.vocab, ["ねこ", "は"])
    assert maps[:, :, 2, 1].max() > 0.5


def test_generation_finishes_sentences(trained):
    params, config, vocab = trained.params, trained.config, trained.vocab
    greedy = generate(params, config, vocab, ["ねこ", "は"], 0.0, np.random.default_rng(0))
    assert greedy[0] in CAT_OBJECTS and greedy[1:] == ("が", "すき", EOS)
    runs = [generate(params, config, vocab, [], 1.0, np.random.default_rng(s)) for s in range(5)]
    assert runs == [generate(params, config, vocab, [], 1.0, np.random.default_rng(s)) for s in range(5)]
    assert all(0 < len(r) <= 12 and BOS not in r for r in runs)
    assert len(generate(params, config, vocab, ["ねこ"], 5.0, np.random.default_rng(1), max_tokens=3)) <= 3
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="temperature"):
            generate(params, config, vocab, ["ねこ"], bad, np.random.default_rng(0))
    with pytest.raises(ValueError, match="unknown"):
        generate(params, config, vocab, ["ライオン"], 1.0, np.random.default_rng(0))


def test_generation_never_samples_the_begin_token():
    config = Config(d_model=8, n_heads=2, n_blocks=1)
    vocab = Vocab.from_sentences(CORPUS)
    params = init_params(config, len(vocab), np.random.default_rng(0))
    params["out.b"] = np.where(np.arange(len(vocab)) == vocab.index(BOS), 50.0, 0.0)  # <s> almost sure
    for temperature in (0.0, 1.0):
        out = generate(params, config, vocab, ["ねこ"], temperature, np.random.default_rng(0), max_tokens=5)
        assert 1 <= len(out) <= 5 and BOS not in out


def test_parameter_names_and_their_groups():
    # The page and the KV cache read the weights by these names, in this order.
    config = Config(d_model=4, n_heads=1, n_blocks=1)
    params = init_params(config, 5, np.random.default_rng(0))
    block = ["ln1.gain", "ln1.bias", "attn.w_q", "attn.w_k", "attn.w_v", "attn.w_o"]
    block += ["ln2.gain", "ln2.bias", "ffn.w1", "ffn.b1", "ffn.w2", "ffn.b2"]
    names = ["embed", *(f"b0.{n}" for n in block), "final_ln.gain", "final_ln.bias", "out.w", "out.b"]
    assert list(params) == names
    assert params["b0.ffn.w1"].shape == (4, 16) and params["out.w"].shape == (4, 5)
    model = unpack(params, config.n_blocks)
    assert model.blocks[0].attn.w_k is params["b0.attn.w_k"] and model.out.b is params["out.b"]
    assert model.blocks[0].ffn.b2 is params["b0.ffn.b2"] and model.final_ln.gain is params["final_ln.gain"]
    repacked = pack(model)
    assert list(repacked) == names and all(repacked[n] is params[n] for n in names)

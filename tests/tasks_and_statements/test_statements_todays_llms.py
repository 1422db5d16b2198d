"""Statement audit, lesson 8 (today's LLMs): a sentence about the KV-cache demo
says "the model chooses" only after the learner's start has been read; the
growth chart plots the exact count n² (the measured time only illustrates);
the online-softmax demo says where a rescaling happens, or that none does, at
every block size; and the fixed sentences say what they assume (2-byte numbers,
a context length, the head width in RoPE)."""

import numpy as np
import pytest
from helpers.apptest import all_text, chart_frames, open_page

from course_app.i18n import catalog

PAGE = "pages/8_todays_llms.py"
PROMPTS = {"ねこ は": 3, "いぬ は": 3, "ねこ": 2, "いぬ": 2}  # tokens given, with <s>


@pytest.mark.parametrize("prompt", ["いぬ は", "ねこ"])
def test_the_model_chooses_only_after_the_start(lang, prompt):
    """Reading <s> of "いぬ は", the next token いぬ is the learner's, not the model's."""
    given = PROMPTS[prompt]
    chooses = {"en": "the model chooses", "ja": "を選びます"}[lang]
    still = {"en": "is still part of the start you chose", "ja": "まだ自分で選んだ書き出しの一部"}[lang]
    at = open_page(PAGE, lang)
    at.selectbox(key="llm_prompt").set_value(prompt).run()
    for step in range(1, given + 2):
        at.slider(key="llm_step").set_value(step).run()
        text = all_text(at)
        assert (chooses in text) is (step >= given), (prompt, step)
        assert (still in text) is (step < given), (prompt, step)


def test_growth_chart_plots_the_exact_count():
    at = open_page(PAGE, "en", {"llm_long_n": "1024"})
    sizes = np.array([64, 128, 256, 512, 1024])
    frame = next(f for f in chart_frames(at) if "x" in f and f["x"].max() == 1024)
    ops = frame[frame["series_order"] == 0].sort_values("x")
    assert ops["y"].tolist() == pytest.approx(((sizes / 64) ** 2).tolist())  # × 4 per doubling
    text = all_text(at)
    assert "roughly quadruples the time" not in text and "× 4 each time n doubles" in text
    times = frame[frame["series_order"] == 1].sort_values("x")["y"].to_numpy()
    assert f"× {times[-1] / times[-2]:.1f}" in text  # the measured ratio, whatever it is


def scores_of_it(masked: bool) -> np.ndarray:
    """それ's scaled scores over example C's keys (q = [1, 1.5, 0, −1], d_k = 4)."""
    first = [[3, 0, 0, 0], [0, 0, 0, 2], [1, 3, 0, 0], [0, 0, 0, 2], [0, 0.5, 3, 0]]
    rest = [[0, 0, 0, 1], [0.3, 0.3, 0, 1], [0, 0, 0, 2], [0, 1.5, 0, 0], [0, 0, 0.5, 1.5]]
    keys = np.array([*first, *rest])
    s = keys @ np.array([1, 1.5, 0, -1]) / 2
    return np.where(np.arange(10) <= 6, s, -np.inf) if masked else s


@pytest.mark.parametrize("masked", [False, True])
def test_rescale_sentence_at_every_block_size(masked):
    msg = catalog("en")
    no = msg["todays_llms.long.no_rescale"].split("{it}")[-1][:30]
    at = open_page(PAGE, "en", folds=True)
    at.toggle(key="llm_masked").set_value(masked).run()
    s = scores_of_it(masked)
    for block in range(1, 11):
        at.slider(key="llm_block").set_value(block).run()
        running = np.maximum.accumulate([s[i : i + block].max() for i in range(0, 10, block)])
        rises = np.flatnonzero(np.diff(running) > 0)
        text = all_text(at)
        if len(rises) == 0:
            assert no in text, block
            continue
        b = rises[0] + 1
        factor = np.exp(running[b - 1] - running[b])
        assert f"In block {b + 1} " in text and f"**{factor:.3f}**" in text, block
    assert (s[2] == s.max()) and s[2] == 2.75  # 魚: in the first block when blocks hold 3 keys


def test_fixed_sentences_state_what_they_assume():
    en, ja = catalog("en"), catalog("ja")
    assert "16-bit" in en["todays_llms.cache.size_body"] and "16 ビット" in ja["todays_llms.cache.size_body"]
    assert "d_{{head}}" in en["todays_llms.rope.body"] and "d_{{head}}" in ja["todays_llms.rope.body"]
    assert "(−2i/d)" not in en["todays_llms.rope.body"]


def test_gpt2_cache_past_its_context_gets_a_caption(lang):
    marker = "文脈長）" if lang == "ja" else "The context length of"
    at = open_page(PAGE, lang, {"llm_len": "1024"}, folds=True)
    assert not [c for c in at.caption if marker in c.value]
    at.slider(key="llm_len").set_value(4096).run()
    assert [c for c in at.caption if marker in c.value and "GPT-2 small" in c.value]

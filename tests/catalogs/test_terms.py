"""Layer 2: the words of the catalogs.

- One spelling per concept: no catalog value (any table, either language)
  uses a variant that ``course_app.glossary.SPELLINGS`` rules out, and a
  bracketed explanation such as プレフィックス（文の書き出し） comes with the
  first use on each page.
- Japanese register and length: no sentence over 80 characters; no sentence
  ending in だ。 or である。 (the course speaks in です・ます).
- Takeaways in one form on every lesson: bullets of full sentences, in
  です・ます in Japanese.
- English counts: a sentence that can say "1" of something says "1 token",
  not "1 tokens" (``t_count`` and ``<key>_one`` / ``<key>_other`` entries).

Catalog keys and table names are not text: only values are searched, and
placeholders ``{...}``, maths ``$...$`` and link targets are taken out first.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.apptest import APP_SOURCES

from course_app import i18n
from course_app.glossary import SPELLINGS, TERMS
from course_app.i18n import LANGS, catalog

ROOT = Path(__file__).resolve().parents[2]
MAX_SENTENCE = 80

# Count placeholders followed by a plural noun that never get exactly 1, and why.
NEVER_ONE: dict[tuple[str, str], str] = {
    ("ui.weights_summary.tie", "n_tied"): "a tie is two or more (lesson_core.ranking.tops)",
    ("capstone.attn.look_back.tie", "n_tied"): "a tie is two or more heads (lesson_core.ranking.tops)",
    ("capstone.attn.roles.right.tie", "n_tied"): "a tie is two or more heads (lesson_core.ranking.tops)",
    ("capstone.attn.roles.wrong.tie", "n_tied"): "a tie is two or more heads (lesson_core.ranking.tops)",
    ("capstone.gen.sampling.k_all", "kept"): "said only when two or more tokens can be drawn (else greedy)",
    ("capstone.gen.sampling.k_some", "n"): "said only when more tokens can be drawn than the k >= 2 kept",
    ("capstone.gen.sampling.k_tie", "kept"): "a tie at the cut keeps more than k >= 1",
    ("capstone.gen.sampling.mass", "kept"): "said only when two or more tokens are kept (else greedy)",
    ("scaling.onehot.close_pair", "n"): "the softmax demo's 12 scores",
    ("scaling.predict.result", "entropy_1"): "an entropy printed with two decimals (1.60 at T = 1)",
    ("scaling.predict.result", "entropy_2"): "an entropy printed with two decimals (2.45 at T = 2)",
    ("capstone.train.over_budget", "steps"): "the steps slider starts at 20",
    ("capstone.train.over_budget", "max_steps"): "the budget allows 200 steps even at the largest model",
    ("playground.problem.too_long", "n"): "shown only above the limit (playground.MAX_CHARS characters)",
    ("attention.demo.body", "n"): "example C: 10 tokens",
    ("attention.demo.body", "d"): "example C: 4 features",
    ("attention.qkv.linear_map", "x"): "a vector: '{x} times the matrix'",
    ("bigram.add.limits", "max_sentences"): "a constant limit (50)",
    ("bigram.add.limits", "max_tokens"): "a constant limit (30)",
    (
        "bigram.blind.body",
        "n_wa",
    ): "は follows a token many times in the built-in corpus; added sentences only add",
    ("bigram.corpus.body", "n"): "the built-in corpus (14 sentences); added sentences only add",
    ("bigram.input.full", "max_sentences"): "a constant limit (50)",
    ("bigram.input.long_token", "n"): "shown only above the limit of 30 characters",
    ("bigram.input.too_many_chars", "max_chars"): "a constant limit (300)",
    ("bigram.input.too_many_chars", "n"): "shown only above the limit of 300 characters",
    ("bigram.input.too_many_tokens", "max_tokens"): "a constant limit (30)",
    ("bigram.input.too_many_tokens", "n"): "shown only above the limit of 30 tokens",
    ("bigram.uniform.body", "n"): "example A: 5 tokens",
    ("bigram.uniform.map_alt", "n"): "n × n weights, n = 5",
    ("capstone.gen.greedy", "n"): "a constant (3 lines)",
    ("capstone.gen.sampled", "n"): "a constant (3 lines)",
    ("capstone.intro", "n"): "the built-in corpus (14 sentences)",
    ("capstone.table.body", "d"): "'width-{d} matrices': an adjective, d >= 8",
    ("capstone.table.body", "total"): "thousands of parameters",
    ("capstone.train.reached", "steps"): "a finished run: at least 20 steps",
    ("capstone.train.short_larger", "steps"): "a finished run: at least 20 steps",
    ("capstone.train.short_smaller", "steps"): "a finished run: at least 20 steps",
    ("capstone.train.short_steps", "steps"): "a finished run: at least 20 steps",
    ("causal_mask.matrix.mask_note", "n"): "example B: 6 tokens",
    ("causal_mask.why.body", "pairs"): "example B: 5 pairs",
    ("multi_head.heads.body", "n"): "example C: 10 tokens",
    ("multi_head.heads.concat", "d_concat"): "two heads of example C: 8 numbers",
    ("multi_head.heads.map_alt", "n"): "n × n weights, n = 10",
    ("multi_head.run.body", "d"): "'{d} × {d} matrices', d is a constant width",
    ("multi_head.run.body", "d_in"): "example C: 4 numbers",
    ("multi_head.run.body", "small_options"): "a list of head counts (1, 2, 4)",
    ("multi_head.run.map_alt", "n"): "n × n weights, n = 10",
    ("multi_head.shapes.body", "h"): "GPT-2 small: 12 heads",
    ("multi_head.shapes.body", "n"): "a 10-token sentence",
    ("multi_head.shapes.concat", "d_head"): "'{h} × {d_head} columns' counts h × d_head = 768 columns",
    ("multi_head.shapes.result", "d"): "GPT-2 small: 768",
    ("multi_head.shapes.result", "params"): "4 × 768² weights",
    ("playground.intro", "max_tokens"): "a constant limit (64)",
    ("playground.problem.too_long", "max_chars"): "a constant limit (1000)",
    ("positional.error.too_large", "max_n"): "a constant limit (256)",
    ("positional.explore.hands", "fast"): "a decimal (6.3): English takes the plural",
    ("positional.explore.hands", "fast_turns"): "a decimal: English takes the plural",
    ("positional.explore.hands", "slow"): "a decimal: English takes the plural",
    ("positional.explore.hands_single", "fast"): "a decimal: English takes the plural",
    ("positional.explore.hands_single", "fast_turns"): "a decimal: English takes the plural",
    ("positional.explore.matrix_alt", "d"): "d_model is even, at least 2",
    ("positional.explore.matrix_alt", "n"): "at least 2 positions",
    ("positional.explore.waves_alt", "dims"): "min(4, d_model), at least 2",
    ("positional.explore.waves_header", "dims"): "min(4, d_model), at least 2",
    ("positional.order.body", "d"): "example E's vectors: 4 components",
    ("positional.order.body", "n"): "example E: 5 tokens",
    ("positional.same.result", "count"): "three positions (0, 1, 2)",
    ("scaling.gradient.series_these", "n"): "12 random scores",
    ("scaling.temperature.entropy", "entropy"): "a decimal: English takes the plural",
    ("scaling.temperature.entropy", "max"): "a decimal: English takes the plural",
    ("scaling.temperature.unscaled", "raw_entropy"): "a decimal: English takes the plural",
    ("bigram.corpus.table_label", "n"): "the built-in corpus (14 sentences); added sentences only add",
    ("capstone.real.one_head_short", "steps"): "the default number of steps (300)",
    ("causal_mask.matrix.vectors", "d"): "example B's vectors: 3 components",
    ("multi_head.heads.concat", "d_v"): "example C: 4 features",
    ("multi_head.shapes.expander", "h"): "GPT-2 small: 12 heads",
    ("positional.clock.real", "positions"): "GPT-2: 1,024 positions",
    ("positional.explore.hands_many", "turns_apart"): "a decimal: English takes the plural",
    ("positional.formula.table_label", "d"): "a constant table: 8 dimensions",
    ("positional.formula.table_label", "n"): "a constant table: 12 positions",
    ("scaling.growth.top_result", "draws"): "a constant (400 queries)",
    ("scaling.growth.top_result", "n_keys"): "a constant (12 keys)",
    ("scaling.task.raw_one_hot", "n_keys"): "a constant (12 keys)",
    ("todays_llms.cache.chart_alt", "n"): "a whole generation: <s>, the prompt and a new token at least",
    ("todays_llms.cache.ops_help", "blocks"): "the course's model: 2 blocks",
    ("todays_llms.cache.size_result", "bytes"): "float64: 8 bytes",
    ("todays_llms.cache.size_result", "gpt_bytes"): "16-bit floats: 2 bytes",
    ("todays_llms.cache.size_result", "gpt_heads"): "GPT-2 small: 12 heads",
    ("todays_llms.cache.size_result", "gpt_layers"): "GPT-2 small: 12 layers",
    ("todays_llms.cache.size_result", "heads"): "the course's model: 4 heads",
    ("todays_llms.cache.size_result", "layers"): "the course's model: 2 blocks",
    ("todays_llms.gqa.result", "bytes"): "16-bit floats: 2 bytes",
    ("todays_llms.gqa.result", "layers"): "a published model's layers: 12, 80 or 32",
    ("todays_llms.gqa.result", "tokens"): "a choice of 128 to 32,768 tokens",
    ("todays_llms.gqa.context", "context"): "a published context length: 1,024, 4,096 or 8,192 tokens",
    ("todays_llms.gqa.window", "window"): "Mistral 7B v0.1: 4,096 tokens",
    ("todays_llms.long.block_help", "n"): "example C: 10 tokens",
    ("todays_llms.long.block_result_full", "n"): "example C: 10 keys",
    ("todays_llms.long.result", "bytes"): "16-bit floats: 2 bytes",
    ("todays_llms.long.result", "cells"): "n × n for n of 64 to 2,048",
    ("todays_llms.long.result", "heads"): "GPT-2 small: 12 heads",
    ("todays_llms.long.result", "layers"): "GPT-2 small: 12 layers",
    ("todays_llms.long.timing_note", "repeats"): "a constant (3 runs)",
    ("todays_llms.task.t3", "tokens"): "a constant (1,024 tokens)",
    ("todays_llms.task.t4", "block"): "a constant (3 keys)",
}
# Words ending in s after a placeholder that are not nouns counted by it.
NOT_COUNTED = {"attends", "gives", "plus", "sits", "does", "looks", "leaks", "puts", "sends", "sees",
               "is", "as", "loss", "matters", "cuts", "keeps"}  # fmt: skip


# --- reading the catalogs -------------------------------------------------------------------

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$", re.S)
PLACEHOLDER = re.compile(r"\{[^{}]*\}")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
MARKUP = re.compile(r"\*\*|\*|`|^\s*(?:[-#>]+|\d+\.)\s*", re.M)


def texts(lang: str) -> Iterator[tuple[str, str]]:
    """(key, text) for every string of a catalog; list items as key[i]."""
    for key, value in catalog(lang).items():
        if isinstance(value, list):
            for i, item in enumerate(value):
                yield f"{key}[{i}]", item
        else:
            yield key, value


def table(key: str) -> str:
    return key.split(".", 1)[0]


def clean(text: str) -> str:
    """What a reader reads of the words: no maths, placeholders or link targets."""
    text = MATH.sub(" ", text)
    text = PLACEHOLDER.sub(" ", text)
    return LINK_TARGET.sub("]", text)


def sentences(text: str) -> list[str]:
    """Japanese sentences of a text: split at 。！？ and line breaks, markup taken
    out; a sentence keeps its end mark."""
    parts = re.findall(r"[^。！？\n]+[。！？]?", MARKUP.sub("", clean(text)))
    return [p.strip() for p in parts if JAPANESE.search(p)]


# --- one spelling per concept ---------------------------------------------------------------


def spelling_hits() -> set[tuple[str, str, str]]:
    hits = set()
    for lang in LANGS:
        for key, text in texts(lang):
            if table(key) == "gloss":  # token glosses are translations of example tokens
                continue
            words = clean(text)
            for s in SPELLINGS:
                if lang == "ja":
                    words = re.sub(re.escape(s.ja) + r"（[^）]*）", s.ja, words)
                for variant in s.not_ja if lang == "ja" else s.not_en:
                    if variant in words:
                        hits.add((lang, key, variant))
    return hits


def test_spellings_are_well_formed():
    assert {s.term for s in SPELLINGS} <= set(TERMS)
    assert set(TERMS) <= {s.term for s in SPELLINGS}, "every glossary term has its spelling"
    for s in SPELLINGS:
        assert s.ja not in s.not_ja and s.en not in s.not_en, s
        assert s.ja and s.en, s


def test_the_glossary_names_each_term_with_its_spelling():
    first = {}
    for s in SPELLINGS:  # a term's first spelling is its own name; later ones are related words
        first.setdefault(s.term, s)
    for term, s in first.items():
        assert catalog("ja")[f"glossary.{term}.name"].startswith(s.ja), term
        assert catalog("en")[f"glossary.{term}.name"].startswith(s.en), term


def test_no_variant_spellings():
    hits = spelling_hits()
    assert hits == set(), "variant spellings: use the glossary's spelling"


def test_the_check_finds_variants():
    # the search itself: a variant is found in a value, not in a key, placeholder or maths
    s = {"ja": "ワン・ホット", "en": "one hot"}
    for lang in LANGS:
        variants = [v for sp in SPELLINGS for v in (sp.not_ja if lang == "ja" else sp.not_en)]
        assert s[lang] in variants
        assert s[lang] in clean(f"x {s[lang]} y")
    assert "one hot" not in clean("$one hot$ {one hot}")


def gloss_hits() -> set[tuple[str, str]]:
    """(table, key) where a page's first use of a word lacks its bracketed explanation."""
    hits = set()
    for s in (s for s in SPELLINGS if s.gloss_ja):
        seen: set[str] = set()
        for key, text in texts("ja"):
            words = clean(text)
            if table(key) in seen or s.ja not in words:
                continue
            seen.add(table(key))
            if not words[words.index(s.ja) :].startswith(s.ja + s.gloss_ja):
                hits.add((table(key), key))
    return hits


def test_first_use_on_a_page_has_its_explanation():
    hits = gloss_hits()
    assert hits == set(), "first use on the page needs its bracket"


# --- Japanese sentences: length and register ------------------------------------------------


def long_sentence_hits() -> dict[tuple[str, str], str]:
    hits = {}
    for key, text in texts("ja"):
        for sentence in sentences(text):
            if len(sentence) > MAX_SENTENCE:
                hits[key, sentence[:12]] = sentence
    return hits


def plain_form_hits() -> dict[tuple[str, str], str]:
    hits = {}
    for key, text in texts("ja"):
        if table(key) == "gloss":
            continue
        for sentence in sentences(text):
            if re.search(r"(だ|である)[」』）]*。$", sentence):
                hits[key, sentence[:12]] = sentence
    return hits


@pytest.mark.parametrize(
    "finder", [long_sentence_hits, plain_form_hits], ids=["sentence_length", "desu_masu"]
)
def test_japanese_sentences(finder):
    assert finder() == {}, "split the sentence / write it in です・ます"


def test_sentence_checks_can_fail():
    assert [len(s) for s in sentences("あ" * 81 + "。短い文です。")] == [82, 6]
    assert sentences("式 $" + "あ" * 90 + "$ と {" + "い" * 90 + "} です。") == ["式   と   です。"]
    assert [s for s in sentences("これは例だ。これは例です。") if s.endswith("だ。")] == ["これは例だ。"]


# --- takeaways: one form on every lesson ------------------------------------------------------

# Japanese: every bullet is one or more full sentences in です・ます.
POLITE_END = re.compile(r"(です|ます|ません|ました|でした|ましょう|でしょう|ください)[」』）]*。$")


def takeaway_hits() -> set[tuple[str, str, str]]:
    hits = set()
    for lang in LANGS:
        for key, text in texts(lang):
            if not key.endswith(".end.takeaway"):
                continue
            for line in text.strip().splitlines():
                bullet = line.removeprefix("- ").strip()
                if not line.startswith("- ") or not bullet:
                    hits.add((lang, key, line[:12]))
                elif lang == "ja":
                    parts = re.findall(r"[^。]+。?", MARKUP.sub("", clean(bullet)))
                    if not all(POLITE_END.search(p.strip()) for p in parts):
                        hits.add((lang, key, bullet[:12]))
                elif not (bullet[0].isupper() or bullet[0] in "$*") or not bullet.endswith("."):
                    hits.add((lang, key, bullet[:12]))
    return hits


def test_takeaways_take_one_form():
    keys = [k for k in catalog("ja") if k.endswith(".end.takeaway")]
    assert len(keys) >= 7, "every lesson ends with takeaways"
    hits = takeaway_hits()
    assert hits == set(), "takeaways: - bullets of full sentences, です・ます in Japanese"


# --- English counts ---------------------------------------------------------------------------

COUNT_THEN_NOUN = re.compile(r"\{(\w+)\}\**\s+\**([a-z]+s)\b")


def base_key(key: str) -> str:
    """The key a ``t_count`` call names: "x.y_one" and "x.y_other" are both "x.y"."""
    return re.sub(r"_(one|other)$", "", key)


def count_candidates() -> set[tuple[str, str, str]]:
    """(key, placeholder, noun) for every '{n} tokens'-like spot of the English catalog."""
    found = set()
    for key, text in texts("en"):
        for name, noun in COUNT_THEN_NOUN.findall(text):
            if noun not in NOT_COUNTED:
                found.add((key, name, noun))
    return found


def render_with_one(key: str, name: str) -> str:
    """The English text ``t_count`` would show when ``name`` is 1."""
    cat = catalog("en")
    if key.endswith("_other"):
        key = key.removesuffix("_other") + "_one"
    fields = {f for _, f, _, _ in string.Formatter().parse(cat[key]) if f}
    return cat[key].format(**{f: "1" if f == name else "X" for f in fields})


def test_a_count_of_one_takes_the_singular():
    wrong = set()
    for key, name, noun in count_candidates():
        if (base_key(key), name) in NEVER_ONE:
            continue
        if re.search(rf"\b1\**\s+\**{noun}\b", render_with_one(key, name)):
            wrong.add(key)
    assert wrong == set(), "say '1 token': make <key>_one / <key>_other and use t_count"


def test_never_one_entries_are_current():
    spots = {(base_key(key), name) for key, name, _ in count_candidates()}
    assert set(NEVER_ONE) - spots == set(), "these no longer exist: remove them from NEVER_ONE"


def test_plural_pairs_are_complete_and_used_keys_exist():
    for lang in LANGS:
        cat = catalog(lang)
        ones = {k.removesuffix("_one") for k in cat if k.endswith("_one")}
        others = {k.removesuffix("_other") for k in cat if k.endswith("_other")}
        assert ones == others, lang
    used = {
        m for p in APP_SOURCES for m in re.findall(r"""t_count\(\s*["']([\w.]+)["']""", p.read_text("utf-8"))
    }
    assert used, "no t_count call found"
    for key in used:
        assert f"{key}_one" in catalog("en") and f"{key}_other" in catalog("en"), key


def test_t_count_picks_the_form(monkeypatch):
    fake = {
        "en": {"x.n_one": "{n} token", "x.n_other": "{n} tokens"},
        "ja": {"x.n_one": "{n} トークン", "x.n_other": "{n} トークン"},
    }
    monkeypatch.setattr(i18n, "catalog", fake.__getitem__)
    for lang, one, many in (("en", "1 token", "2 tokens"), ("ja", "1 トークン", "2 トークン")):
        monkeypatch.setattr(i18n, "current_lang", lambda lang=lang: lang)
        assert i18n.t_count("x.n", 1, n=1) == one
        assert i18n.t_count("x.n", 2, n=2) == many
        assert i18n.t_count("x.n", 0, n=0) == many.replace("2", "0")
    assert i18n.plural_key("x.n", 1.0, "en") == "x.n_one"
    assert i18n.plural_key("x.n", 1.5, "en") == "x.n_other"


# --- the course's shape: where it ends, which lesson covers what -------------------------------


def test_only_the_last_lesson_ends_the_course():
    from course_app.course import LESSONS

    last = f"{LESSONS[-1].id}.end.next"
    ending = {"ja": "おしまい", "en": "end of the course"}
    for lang in LANGS:
        says_it_ends = [key for key, text in texts(lang) if ending[lang] in text]
        assert says_it_ends == [last], lang


def test_a_lesson_that_points_ahead_names_the_lesson():
    vague = {
        "ja": ("あとのレッスン", "後のレッスン", "のちのレッスン"),
        "en": ("a later lesson", "later lessons"),
    }
    for lang in LANGS:
        assert [key for key, text in texts(lang) if any(v in text for v in vague[lang])] == [], lang


# --- a model's token is a トークン, not a 語 ----------------------------------------------------

# Words that contain 語 and mean something else (function word, grammar, language...).
WORD_COMPOUNDS = re.compile("機能語|内容語|用語|英語|日本語|言語|語彙|主語|目的語|単語|語順|物語")
# The values where 語 is an ordinary word of Japanese, not a token of the model:
# how a tokenizer splits words, how the learner's text is split into words and
# particles, two words of a learner's sentence run together for want of a
# space, and two quiz options about what a word "means".
ORDINARY_WORD = {
    "glossary.token.long",
    "bigram.input.new_tokens",
    "ux.split_check",
    "ux.split_done",
    "attention.quiz.q2.options[0]",
    "attention.quiz.q2.feedback[2]",
    "causal_mask.quiz.q1.options[2]",
}


def test_a_model_token_is_called_a_token_in_japanese():
    words = {key for key, text in texts("ja") if "語" in WORD_COMPOUNDS.sub("", clean(text))}
    assert words - ORDINARY_WORD == set(), "say トークン where the model's token is meant"
    assert words >= ORDINARY_WORD, "a key that no longer says 語 leaves ORDINARY_WORD"

"""Lesson 2 — attention: Query, Key, Value and the weighted average."""

import numpy as np
import streamlit as st

from course_app import (
    fold,
    gloss,
    lesson_end,
    maths,
    md_escape,
    num,
    page_start,
    pct,
    ranking,
    section_fold,
    section_start,
    t,
    t_list,
    tables,
    terms,
    try_this,
    vec,
    views,
)
from lesson_core import AttentionResult, causal_mask, equal_average, linear_map, residual
from lesson_core import scaled_dot_product_attention as attention
from lesson_core.examples import (
    CHAPTER,
    LINEAR_MAP_INPUT,
    LINEAR_MAP_WEIGHTS,
    PRONOUN,
    PRONOUN_QUERY,
    TOY,
    TOY_VALUE_AXES,
    TOY_VALUES,
    W_KEY,
    W_QUERY,
    WANTED_SUKI,
)
from lesson_core.worked import HandAttention, attention_by_hand, linear_map_terms

LESSON, EVEN_FLOOR, EVEN_GAP, HALF = "attention", 0.30, 0.005, 0.5
IT, CAT, FISH, FRESH = PRONOUN_QUERY, *(PRONOUN.index(tok) for tok in ("猫", "魚", "新鮮"))
N, KV = len(PRONOUN.tokens), PRONOUN.vectors
SK, NAP = CHAPTER.index("すき"), CHAPTER.index("ひるね")  # example A: the query, its wanted top token
FULL = attention(PRONOUN.queries, KV, KV, mask=causal_mask(N))  # the default map, temperature 1


def main() -> None:
    page_start(LESSON)

    goal_section()
    qkv_section()
    steps_section()
    section_start("attention.demo", n=N, d=len(PRONOUN.axes))  # 4. example C in a sentence
    st.caption(t("ui.hand_made"))
    prediction()
    sentence_demo()
    sentence_notes()
    chapter_section()
    matrix_section()
    lesson_end(LESSON)


def chapter_words() -> list[str]:
    """Example A's tokens, glossed in the page's language."""
    return [gloss(tok) for tok in CHAPTER.tokens]


def goal_section() -> None:
    """1. The goal before the mechanism: the weights we would like すき to use."""
    section_start("attention.goal", terms=("weighted_average",))
    if box := fold(t("attention.goal.fold"), "attention_goal"):
        with box:
            wanted_weights()


def wanted_weights() -> None:
    """The weights すき would like, token by token, and what "looking" means."""
    st.dataframe(
        tables.text_table(
            {
                t("ui.col.token"): chapter_words(),
                t("attention.goal.col_wanted"): [pct(w, 0) for w in WANTED_SUKI],
                t("attention.goal.col_why"): t_list("attention.goal.why"),
            }
        ),
        hide_index=True,
    )
    st.markdown(t("attention.goal.looking"))


def qkv_section() -> None:
    """2. Query, key and value, each a linear map of the token's vector."""
    if box := section_fold("attention.qkv", "attention_qkv"):
        with box:
            st.markdown(t("attention.qkv.body"))
            terms("query_key_value", "linear_map", "matrix")
            linear_map_example()


def linear_map_example() -> None:
    """One linear map worked out: the product, then each output as a weighted sum."""
    mapped = linear_map(LINEAR_MAP_INPUT, LINEAR_MAP_WEIGHTS)
    st.markdown(t("attention.qkv.linear_map", x=vec(LINEAR_MAP_INPUT, 0), y=vec(mapped, 0)))
    st.latex(maths.product(LINEAR_MAP_INPUT, LINEAR_MAP_WEIGHTS, mapped))
    st.markdown(t("attention.qkv.weighted_sum"))
    st.latex(
        maths.weighted_sums(
            LINEAR_MAP_INPUT, LINEAR_MAP_WEIGHTS, linear_map_terms(LINEAR_MAP_INPUT, LINEAR_MAP_WEIGHTS)
        )
    )


def steps_section() -> None:
    """3. The three steps on example D, then the same by hand."""
    toy = attention(TOY.queries, TOY.vectors, TOY.vectors)
    section_start(
        "attention.steps",
        terms=("dot_product", "softmax", "weighted_average"),
        query=vec(TOY.queries[0], 0),
        d_k=TOY.vectors.shape[1],
    )
    toy_words = [gloss(tok) for tok in TOY.tokens]
    if box := fold(t("ui.fold.worked"), "attention_steps", icon=":material/table:"):
        with box:
            steps_example(toy_words, toy)
    if box := fold(t("attention.hand.header"), "attention_hand", icon=":material/calculate:"):
        with box:
            by_hand(toy_words, toy)
    if box := fold(t("attention.kv.header"), "attention_kv"):
        with box:
            key_is_not_value(toy_words, toy)


def steps_example(toy_words: list[str], toy: AttentionResult) -> None:
    """The three steps of example D as a table, and what its query gets."""
    views.steps_table(toy_words, TOY.vectors, toy, row=0)
    top = int(np.argmax(toy.weights[0]))
    st.markdown(
        t(
            "attention.steps.output",
            top=gloss(TOY.tokens[top]),
            top_weight=pct(toy.weights[0, top]),
            output=vec(toy.output[0]),
        )
    )
    st.caption(t("attention.steps.stable"))


def key_is_not_value(toy_words: list[str], toy: AttentionResult) -> None:
    """The same query and keys with values on other axes: the weights stay, the output changes."""
    fish = TOY.index("魚")
    values = {f"v_{name}": vec(v, 1) for name, v in zip(("cat", "fish", "it"), TOY_VALUES, strict=True)}
    st.markdown(t("attention.kv.body", w_fish=pct(toy.weights[0, fish]), **values))
    other = attention(TOY.queries, TOY.vectors, TOY_VALUES)
    axes = [t(f"axis.{a}") for a in TOY_VALUE_AXES]
    st.latex(maths.component_sums(axes, other.weights[0], TOY_VALUES, other.output[0]))
    st.markdown(t("attention.kv.result", output=vec(other.output[0])))


def by_hand(toy_words: list[str], toy: AttentionResult) -> None:
    """Example D's first query worked by hand: dot products, scaling, exp, shares, sums."""
    hand = attention_by_hand(TOY.queries[0], TOY.vectors, TOY.vectors)
    st.markdown(t("attention.hand.dot", query=vec(TOY.queries[0], 0)))
    st.latex(maths.dot_products(toy_words, TOY.queries[0], TOY.vectors, hand.scores))
    st.markdown(t("attention.hand.scale", d_k=TOY.vectors.shape[1], root=num(hand.divisor, 3)))
    st.latex(maths.divisions(toy_words, hand.scores, hand.divisor, hand.scaled))
    st.markdown(t("attention.hand.exp"))
    st.latex(maths.exponentials(toy_words, hand.scaled, hand.exps, hand.total))
    st.markdown(t("attention.hand.divide"))
    st.latex(maths.shares(toy_words, hand.exps, hand.total, hand.weights))
    st.markdown(t("attention.hand.sum"))
    st.latex(maths.component_sums([t(f"axis.{a}") for a in TOY.axes], hand.weights, TOY.vectors, hand.output))
    rounding_note(hand, toy)


def rounding_note(hand: HandAttention, toy: AttentionResult) -> None:
    """Why the hand-rounded weights differ a little from the exact ones."""
    fish, it = TOY.index("魚"), TOY.index("それ")
    st.markdown(
        t(
            "attention.hand.rounding",
            fish_hand=pct(hand.weights[fish]),
            it_hand=pct(hand.weights[it]),
            fish_exact=pct(hand.exact[fish]),
            it_exact=pct(hand.exact[it]),
            fish_scaled=num(hand.scaled[fish]),
            fish_scaled_exact=num(toy.scaled_scores[0, fish], 4),
            it_scaled=num(hand.scaled[it]),
            it_scaled_exact=num(toy.scaled_scores[0, it], 4),
        )
    )


@st.fragment
def prediction() -> None:
    """Before the demo: the learner commits which token それ will weight most (with
    the default queries), then sees the answer and why."""
    labels = views.glossed_labels(PRONOUN.tokens)
    guess = st.radio(
        t("attention.predict.question"),
        range(IT + 1),  # what それ can see with the mask: itself and its left
        index=None,
        format_func=labels.__getitem__,
        horizontal=True,
        key="at_predict",
    )
    if guess is None:
        st.caption(t("attention.predict.wait"))
        return
    row = FULL.weights[IT]
    top = int(
        ranking.top_names(labels, row)[1][0]
    )  # one leader at the defaults (tests/tasks_and_statements/test_statements_attention.py)
    said = "right" if guess == top else "wrong"
    shown = {"top": md_escape(labels[top]), "top_weight": pct(row[top])}
    st.markdown(
        t(f"attention.predict.{said}", guess=md_escape(labels[guess]), guess_weight=pct(row[guess]), **shown)
    )
    st.markdown(t("attention.predict.why", query=vec(PRONOUN.queries[IT], 1), fish_key=vec(KV[FISH], 1)))


@st.fragment
def sentence_demo() -> None:
    """4. Example C in a sentence: choose a query, move its vector, watch the weights."""
    side, controls = st.columns([2, 1], gap="large")  # on a phone: the chart first, its controls below
    with controls:
        query, masked, temperature = views.query_controls(PRONOUN.tokens, IT, "at")
        st.caption(t("attention.demo.temp_note"))
        token = views.glossed_labels(PRONOUN.tokens)[query]
        st.markdown(
            f"**{t('attention.demo.sliders_label', token=token)}**", help=t("attention.demo.sliders_help")
        )
        queries = views.query_sliders(PRONOUN.axes, PRONOUN.queries, query, "at_q")
    allowed = causal_mask(N) if masked else None
    res = attention(queries, KV, KV, mask=allowed, temperature=temperature)
    views.explorer(views.Explored(PRONOUN.tokens, KV, res, query, allowed), "at", side, fold_map=True)
    views.attention_code(
        "attention_code", LESSON, PRONOUN.tokens, queries, KV, KV, allowed, temperature, query
    )
    if box := fold(t("attention.demo.table_header"), "attention_table", icon=":material/table:"):
        with box:
            views.weights_table(PRONOUN.tokens, res.weights, allowed)
    sore = res.weights[IT]
    visible = sore[: IT + 1] if masked else sore
    checks = {
        "equal": abs(sore[CAT] - sore[FISH]) < EVEN_GAP and min(sore[CAT], sore[FISH]) >= EVEN_FLOOR,
        "flat": bool(np.ptp(visible) < EVEN_GAP),
        "fish_half": temperature != 1.0
        and masked
        and np.allclose(queries[IT], PRONOUN.queries[IT])
        and sore[FISH] < HALF,
    }
    try_this(LESSON, checks, floor=pct(EVEN_FLOOR, 0), half=pct(HALF, 0))


def sentence_notes() -> None:
    """What the default map says of 新鮮 and それ, and a caveat about それ's query (folded)."""
    if box := fold(t("attention.demo.notes_fold"), "attention_notes"):
        with box:
            sentence_notes_body()


def sentence_notes_body() -> None:
    st.markdown(
        t(
            "attention.demo.fresh",
            fresh_fish=pct(FULL.weights[FRESH, FISH]),
            fresh_it=pct(FULL.weights[FRESH, IT]),
            it_fish=pct(FULL.weights[IT, FISH]),
        )
    )
    st.info(t("attention.demo.caveat"))


def chapter_section() -> None:
    """5. Example A again: computed weights beside the wanted ones and the equal average."""
    if box := section_fold("attention.chapter", "attention_chapter"):
        with box:
            chapter_body()


def chapter_body() -> None:
    x = CHAPTER.vectors
    chapter, plain = attention(x, x, x), equal_average(x)
    st.markdown(t("attention.chapter.body", each=num(plain.weights[SK, 0], 1)))
    views.compare_bars(
        chapter_words(),
        {
            t("attention.chapter.wanted_series"): WANTED_SUKI,
            t("attention.chapter.attention_series"): chapter.weights[SK],
            t("attention.chapter.uniform_series"): plain.weights[SK],
        },
        t("attention.chapter.alt"),
    )
    chapter_result(chapter, plain)
    chapter_vectors()


def chapter_result(chapter: AttentionResult, plain: AttentionResult) -> None:
    """Which tokens すき weighs most, against the wanted weights and the equal average."""
    words = chapter_words()
    first, second = np.argsort(chapter.weights[SK])[::-1][:2]
    st.markdown(
        t(
            "attention.chapter.result",
            first=words[first],
            first_weight=pct(chapter.weights[SK, first]),
            second=words[second],
            second_weight=pct(chapter.weights[SK, second]),
            particle_weight=pct(chapter.weights[SK, CHAPTER.index("は")]),
            attended=vec(chapter.output[SK]),
            uniform=vec(plain.output[SK]),
            nap=words[NAP],
            nap_wanted=pct(WANTED_SUKI[NAP], 0),
            token=words[SK],
            self_wanted=pct(WANTED_SUKI[SK], 0),
        )
    )
    st.markdown(t("attention.chapter.self", token=words[SK], self_weight=pct(chapter.weights[SK, SK])))


def chapter_vectors() -> None:
    """すき's query and key: one token, two different vectors; then every token
    through the same two matrices, and why two dimensions cannot do better."""
    x, words = CHAPTER.vectors, chapter_words()
    q_suki, k_suki = linear_map(x[SK], W_QUERY), linear_map(x[SK], W_KEY)
    st.latex(maths.named_product(x[SK], W_QUERY, q_suki, "q"))
    st.latex(maths.named_product(x[SK], W_KEY, k_suki, "k"))
    st.markdown(t("attention.chapter.two_vectors", token=words[SK], q=vec(q_suki), k=vec(k_suki)))
    before = attention(x, x, x).weights[SK]
    after = attention(linear_map(x, W_QUERY), linear_map(x, W_KEY), x).weights[SK]
    angles = np.degrees(np.arctan2(x[:, 1], x[:, 0]))
    st.markdown(
        t(
            "attention.chapter.separate",
            token=words[SK],
            nap=words[NAP],
            weights=t("ui.list_separator").join(f"{w} {pct(p)}" for w, p in zip(words, after, strict=True)),
            nap_before=pct(before[NAP]),
            nap_after=pct(after[NAP]),
            self_before=pct(before[SK]),
            self_after=pct(after[SK]),
            self_change=t(
                "attention.chapter.self_up" if after[SK] > before[SK] else "attention.chapter.self_down"
            ),
            angle_token=num(angles[SK], 1),
            angle_nap=num(angles[NAP], 1),
        )
    )


def matrix_section() -> None:
    """6. All queries at once: the formula, the shapes and the residual connection."""
    if box := section_fold("attention.matrix", "attention_matrix"):
        with box:
            matrix_body()


def matrix_body() -> None:
    st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right) V")
    terms("transpose", "causal_mask", "residual")
    st.markdown(t("attention.matrix.body", n=N, d_k=KV.shape[1]))
    views.shapes_table(
        [
            ("Q", PRONOUN.queries.shape, t("attention.matrix.q")),
            ("Kᵀ", KV.T.shape, t("attention.matrix.kt")),
            ("QKᵀ / √d_k + M", FULL.scaled_scores.shape, t("attention.matrix.scores")),
            ("softmax(…)", FULL.weights.shape, t("attention.matrix.weights")),
            ("softmax(…) V", FULL.output.shape, t("attention.matrix.out")),
        ]
    )
    st.markdown(
        t(
            "attention.matrix.residual",
            x=vec(KV[IT], 1),
            attended=vec(FULL.output[IT]),
            total=vec(residual(KV[IT], FULL.output[IT])),
        )
    )

"""The bigram lesson's own views: the corpus the learner can extend, the count
map, the bigram-versus-corpus comparison and the plain average of example A.

Text a learner typed is only ever shown as plain text (tables, chart labels,
widget options) or escaped (``md_escape``) inside a catalog sentence.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from course_app import (
    bound,
    charts,
    fold,
    gloss,
    md_escape,
    one_shot,
    pct,
    session,
    t,
    tables,
    url_state,
    vec,
    word_split,
)
from lesson_core.bigram import PrefixComparison, fit_bigram, frequent_tokens
from lesson_core.corpus_input import MAX_SENTENCES, MAX_TOKENS, check_sentence, split_sentence
from lesson_core.ranking import top_k_whole

MAP_LIMIT = 30  # rows and columns the count map has room for
Sentence = tuple[str, ...]


ADDED_PARAM = "bg_add"  # the learner's sentences in the URL (one value each), so a reload keeps them


def added_sentences(base: Sequence[Sentence] = ()) -> list[Sentence]:
    """The learner's sentences, kept in the session (session.BG_ADDED, so they
    survive moving to another lesson and back) and in the URL (?bg_add=, so
    they survive a reload or a server restart). A fresh session reads them
    back from the URL, checking each like a typed one; the URL is rewritten
    whenever it disagrees with the session."""
    if not session.has(session.BG_ADDED):
        session.put(session.BG_ADDED, _from_url(base))
    added = session.get(session.BG_ADDED)
    url_state.keep(ADDED_PARAM, list(added))
    return [split_sentence(s) for s in added]


def glossed(tokens: Sequence[str]) -> str:
    """Tokens joined by spaces, each with its English gloss when it has one
    ("ねこ (cat) は (topic marker)"); the bare tokens in Japanese."""
    return " ".join(gloss(tok) for tok in tokens)


def md_glossed(tokens: Sequence[str]) -> str:
    """``glossed`` escaped for st.markdown."""
    return md_escape(glossed(tokens))


def _from_url(base: Sequence[Sentence]) -> list[str]:
    kept: list[str] = []
    linked = url_state.read_list(ADDED_PARAM)
    for text in linked:
        check = check_sentence(text, [*base, *map(split_sentence, kept)], len(kept))
        if check.ok:
            kept.append(" ".join(check.tokens))
    if len(kept) < len(linked):
        session.put(session.BG_NOTICE, ("link_dropped", {"n": len(linked) - len(kept), "kept": len(kept)}))
    return kept


def _add(base: Sequence[Sentence]) -> None:
    if word_split.propose(session.BG_NEW):  # Japanese without spaces: show the split, add on the next press
        return
    added = list(session.get(session.BG_ADDED, []))
    check = check_sentence(session.get(session.BG_NEW, ""), [*base, *map(split_sentence, added)], len(added))
    new: list[str] = []
    if check.ok:
        known = {tok for sentence in [*base, *map(split_sentence, added)] for tok in sentence}
        new = [tok for tok in dict.fromkeys(check.tokens) if tok not in known]  # a missing space shows here
        session.put(session.BG_ADDED, [*added, " ".join(check.tokens)])
        session.put(session.BG_NEW, "")
    values = check.values | {"n_added": len(added) + check.ok}
    session.put(session.BG_NOTICE, (check.problem or "added", values | ({"new": new} if new else {})))


def _remove() -> None:
    gone = session.get(session.BG_REMOVE_PICK)
    added = [s for s in session.get(session.BG_ADDED, []) if s != gone]
    session.put(session.BG_ADDED, added)
    session.put(session.BG_NOTICE, ("removed", {"n_added": len(added)}))


def corpus_editor(base: Sequence[Sentence], added: Sequence[Sentence]) -> None:
    """The corpus as a table (example F, then the learner's sentences), a form to
    add a sentence, a control to remove one, and the outcome of the last action."""
    source = [t("bigram.corpus.from_example")] * len(base) + [t("bigram.corpus.from_you")] * len(added)
    sentences = [*base, *added]
    columns = {t("bigram.corpus.col_sentence"): [" ".join(s) for s in sentences]}
    word_by_word = [glossed(s) for s in sentences]
    if word_by_word != columns[t("bigram.corpus.col_sentence")]:  # English: each token's gloss
        columns[t("bigram.corpus.col_gloss")] = word_by_word
    columns[t("bigram.corpus.col_tokens")] = [len(s) for s in sentences]
    columns[t("bigram.corpus.col_source")] = source
    frame = tables.text_table(columns)
    if box := fold(t("bigram.corpus.table_label", n=len(frame)), "bigram_corpus", icon=":material/table:"):
        with box:
            st.dataframe(frame, hide_index=True, height=38 + 35 * min(len(frame), 16))
    st.caption(t("bigram.add.limits", max_tokens=MAX_TOKENS, max_sentences=MAX_SENTENCES, n_added=len(added)))
    with st.form("bg_add_form", clear_on_submit=False, border=True):
        st.text_input(t("bigram.add.label"), key=session.BG_NEW, placeholder=t("bigram.add.placeholder"))
        st.form_submit_button(t("bigram.add.button"), key="bg_add", on_click=_add, args=(tuple(base),))
    word_split.notice(session.BG_NEW, "ux.split_check", button=t("bigram.add.button"))
    code, values = one_shot(session.BG_NOTICE, (None, {}))  # shown again if a ticked task reruns the page
    if code in ("added", "removed"):
        st.success(t(f"bigram.input.{code}", **{k: v for k, v in values.items() if k != "new"}))
        if values.get("new"):
            st.info(
                t(
                    "bigram.input.new_tokens",
                    tokens=t("ui.list_separator").join(map(md_escape, values["new"])),
                )
            )
    elif code:
        st.warning(t(f"bigram.input.{code}", **values))
    mine = session.get(session.BG_ADDED, [])
    if mine:
        pick, button = st.columns([3, 1], vertical_alignment="bottom")
        pick.selectbox(t("bigram.add.remove_label"), mine, key=session.BG_REMOVE_PICK)
        button.button(t("bigram.add.remove_button"), key="bg_remove", on_click=_remove)


def count_map(sentences: Sequence[Sentence]) -> None:
    """The bigram count table: rows = previous token, columns = next token, the
    count in every cell, the colour = the cell's share of its row (the bigram's
    probability). At most MAP_LIMIT tokens, the most frequent ones."""
    model = fit_bigram(sentences)
    keep = frequent_tokens(sentences, MAP_LIMIT)
    if len(keep) < len(model.vocab):
        st.caption(t("bigram.counts.truncated", shown=len(keep), total=len(model.vocab)))
    tokens = [model.vocab[i] for i in keep]
    counts, shares = (m[np.ix_(keep, keep)] for m in (model.counts, model.probabilities))
    titles = charts.MapTitles(
        t("bigram.counts.x_title"), t("bigram.counts.y_title"), t("bigram.counts.colour_title")
    )
    spec = charts.scrolling_heatmap_spec(titles, max(140, 26 * len(tokens)))  # the cells' height
    labels = [gloss(x) for x in tokens]
    frame = charts.heatmap_frame(labels, labels, shares, counts.astype(str))
    alt = t("bigram.counts.alt", n=len(model.vocab))
    charts.save_button(frame, spec, alt)  # outside the scroller: always in view
    with st.container(height=spec["height"] + charts.SCROLLING_MAP_ROOM, border=False):  # sideways on a phone
        st.vega_lite_chart(frame, spec, width="content", alt=alt)


def top_text(vocab: Sequence[str], p: np.ndarray, k: int = 4, in_table: bool = False) -> str:
    """'いぬ 27.3%, ねこ 18.2%, さかな 9.1%, ひるね 9.1%, and 3 more': the k likeliest
    tokens of ``p`` and how many more ``p`` gives a chance to, each token
    glossed in English. A tie at the cut is kept whole (``top_k_whole``), so
    the list can run past k but never shows one of two equal shares and hides
    the other. For markdown the tokens are escaped; ``in_table`` gives plain text."""
    best = top_k_whole(p, k)
    if len(best) == 0:
        return t("bigram.lab.nothing")
    name = gloss if in_table else (lambda tok: md_escape(gloss(tok)))
    words = t("bigram.lab.sep").join(f"{name(vocab[i])} {pct(p[i])}" for i in best)
    rest = int(np.count_nonzero(p)) - len(best)
    return words + t("bigram.lab.more", n=rest) if rest > 0 else words


def compare_bars(comp: PrefixComparison) -> None:
    """The bigram's next-token distribution next to the corpus's, over the tokens
    either gives a chance to."""
    shown = comp.shown
    series = {
        t("bigram.lab.series_bigram", last=gloss(comp.prefix[-1])): comp.bigram[shown],
        t("bigram.lab.series_corpus", prefix=glossed(comp.prefix)): comp.corpus[shown],
    }
    spec = charts.grouped_bar_spec(  # slanted labels, so long tokens never overlap
        t("bigram.lab.x_title"),
        t("bigram.lab.y_title"),
        t("bigram.lab.series_title"),
        height=200,
        label_angle=-40,
        label_limit=150,
    )
    frame = charts.grouped_bar_frame([gloss(comp.vocab[i]) for i in shown], series, _bar_text)
    charts.show(frame, spec, t("bigram.lab.alt", prefix=" ".join(comp.prefix), tv=pct(comp.tv)))


def _bar_text(p: float) -> str:
    return pct(p) if p > 0 else ""


def blind_spot_table(comparisons: Sequence[PrefixComparison]) -> None:
    """One row per prefix ending in the same token: the distance between the
    bigram and the corpus, what the corpus says, and the bigram's guess (one
    and the same row each time)."""
    frame = tables.text_table(
        {
            t("bigram.blind.col_prefix"): [glossed(c.prefix) for c in comparisons],
            t("bigram.blind.col_tv"): [pct(c.tv) for c in comparisons],
            t("bigram.blind.col_corpus"): [top_text(c.vocab, c.corpus, 3, True) for c in comparisons],
            t("bigram.blind.col_bigram"): [top_text(c.vocab, c.bigram, 3, True) for c in comparisons],
        }
    )
    st.dataframe(frame, hide_index=True)


def prefix_controls(sentences: Sequence[Sentence]) -> tuple[str, ...]:
    """Choose a sentence of the corpus and how many of its tokens have been
    read (both kept in the URL); returns the tokens read so far, the prefix."""
    texts = [" ".join(s) for s in sentences]
    chosen = bound(st.selectbox, t("bigram.lab.sentence_label"), texts, index=0, key="bg_sentence")
    tokens = split_sentence(chosen or texts[0])
    if len(tokens) < 3:  # a two-token sentence has only one prefix: its first token
        st.caption(t("bigram.lab.one_prefix"))
        return tokens[:1]
    read = bound(
        st.slider,
        t("bigram.lab.read_label"),
        1,
        len(tokens) - 1,
        2,
        help=t("bigram.lab.read_help"),
        key="bg_read",
    )
    return tokens[: int(read)]


def uniform_table(tokens: Sequence[str], vectors: np.ndarray, weights: np.ndarray) -> None:
    """Example A: every token, its embedding and the weight the plain average gives it."""
    frame = tables.text_table(
        {
            t("ui.col.token"): [gloss(x) for x in tokens],
            t("bigram.uniform.col_embedding"): [vec(v) for v in vectors],
            t("ui.col.weight"): [pct(w) for w in weights],
        }
    )
    st.dataframe(frame, hide_index=True)


def uniform_map(tokens: Sequence[str], weights: np.ndarray) -> None:
    """The plain average's weights for every position: every row the same."""
    labels = [gloss(x) for x in tokens]
    slanted = max(map(len, labels)) > 4  # English glosses: tilt the column labels so they fit
    spec = charts.heatmap_spec(
        charts.MapTitles(t("bigram.uniform.map_x"), t("bigram.uniform.map_y"), t("ui.col.weight")),
        200,
        labels=charts.Labels(angle=-40, align="left") if slanted else charts.Labels(),
    )
    frame = charts.weights_frame(labels, labels, weights, None)
    charts.show(frame, spec, t("bigram.uniform.map_alt", n=len(tokens)))

"""The trained model's attention maps, and where は looks back."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from course_app import bound, charts, gloss, md_escape, pct, ranking, session, t, views
from lesson_core.attention import causal_mask
from lesson_core.capstone import (
    WA,
    LookBack,
    look_back,
    wa_position,
)
from lesson_core.examples import CORPUS
from lesson_core.head_roles import THRESHOLD, HeadRole, SubjectHeads, head_roles, subject_heads
from lesson_core.rounding import fixed_array
from lesson_core.transformer import (
    BOS,
    Config,
    TrainResult,
    attention_maps,
    with_bos,
)
from lessons.capstone.predictions import prefix_text, token_select

HEADS_PER_ROW = 4
PICK = "gpt_head_pick"  # task t4: the head the learner says tells ねこ は from いぬ は

SMALL_MAP_TEXT = 0.1  # cells of the small maps below this weight stay blank


def small_map(labels: Sequence[str], weights: np.ndarray, alt_text: str) -> None:
    """One head's weights; rows = queries, columns = keys, grey = masked, the weight
    in percent written in every cell of at least SMALL_MAP_TEXT.

    Shapes: weights [n, n]"""
    n = len(labels)
    blocked = ~causal_mask(n)
    texts = np.where(blocked | (weights < SMALL_MAP_TEXT), "", fixed_array(weights, 0, scale=100))
    frame = charts.heatmap_frame(labels, labels, weights, texts, masked=blocked)
    titles = charts.MapTitles(t("ui.col.key_token"), t("ui.col.query"), t("ui.col.weight"))
    spec = charts.small_heatmap_spec(titles, n)
    charts.show(frame, spec, alt_text)


def attention_section(result: TrainResult) -> bool:
    """Pick a corpus sentence; every block's heads as small heatmaps (causal mask
    grey), each with its measured scores and the pattern they name; the number
    that says whether は looks back at the token before it; then the learner's
    pick of the head that tells ねこ は from いぬ は. Returns whether the learner
    picked (one of) the best head(s) with the select box (task t4)."""
    sentence = token_select(t("capstone.attn.sentence"), CORPUS, CORPUS[0], "gpt_sentence")
    maps = attention_maps(result.params, result.config, result.vocab, sentence)
    look_back_text(look_back(maps, sentence))
    labels = views.distinct_labels(with_bos(sentence))
    glossed = " ".join(gloss(tok) for tok in sentence)
    st.caption(t("capstone.attn.how_to_read", sentence=md_escape(glossed), min=pct(SMALL_MAP_TEXT, 0)))
    st.caption(t("capstone.attn.roles.how", threshold=pct(THRESHOLD), wa=WA, bos=BOS))
    head_grid(result.config, labels, maps, sentence, head_roles(maps, sentence))
    return head_pick(result)


def look_back_text(found: LookBack | None) -> None:
    """How strongly は looks at the token before it, against an even spread, in
    the head that looks hardest, or in every head that ties for it; or that the
    sentence has no は to look from."""
    if found is None:
        st.info(t("capstone.attn.no_wa", wa=WA))
        return
    places = found.places or ((found.block, found.head),)
    where = [t("capstone.attn.place", block=block, head=head) for block, head in places]
    st.markdown(
        t(
            f"capstone.attn.look_back.{'one' if len(places) == 1 else 'tie'}",
            wa=WA,
            subject=md_escape(gloss(found.subject)),
            weight=pct(found.weight),
            places=ranking.joined(where),
            n_tied=len(places),
            even=pct(found.even),
        )
    )


def head_grid(
    config: Config,
    labels: Sequence[str],
    maps: np.ndarray,
    sentence: Sequence[str],
    roles: Sequence[Sequence[HeadRole]],
) -> None:
    """Every block under its own title, its heads HEADS_PER_ROW to a row, each
    map with its scores and named pattern under it (on a phone the columns stack).

    Shapes: maps [n_blocks, h, n, n], labels [n], roles n_blocks × h"""
    heads = config.n_heads
    at = wa_position(sentence)
    subject = None if at is None else with_bos(sentence)[at - 1]
    for block in range(config.n_blocks):
        st.markdown(f"**{t('capstone.attn.block', block=block + 1, blocks=config.n_blocks)}**")
        for first in range(0, heads, HEADS_PER_ROW):
            columns = st.columns(HEADS_PER_ROW)
            for head in range(first, min(first + HEADS_PER_ROW, heads)):
                with columns[head - first]:
                    st.caption(t("capstone.attn.head", head=head + 1, block=block + 1))
                    small_map(
                        labels,
                        maps[block, head],
                        t(
                            "capstone.attn.alt",
                            block=block + 1,
                            head=head + 1,
                            sentence=prefix_text(sentence),
                        ),
                    )
                    st.caption(role_caption(roles[block][head], subject))


def role_caption(role: HeadRole, subject: str | None) -> str:
    """Under a head's map: the pattern(s) its scores name, or "mixed", then its
    scores in percent (the one from は to ``subject`` only when the sentence has one).

    Shapes: -> one caption"""
    names = [t(f"capstone.attn.roles.pattern.{name}", wa=WA) for name in role.patterns]
    named = (
        t("capstone.attn.roles.named", names=ranking.joined(names))
        if names
        else t("capstone.attn.roles.mixed")
    )
    scores = role.scores
    line = t(
        "capstone.attn.roles.scores",
        previous=pct(scores.previous),
        first=pct(scores.first),
        itself=pct(scores.itself),
    )
    if scores.subject is not None and subject is not None:
        line += t(
            "capstone.attn.roles.subject", wa=WA, subject=md_escape(subject), weight=pct(scores.subject)
        )
    return f"{named}  \n{line}"


def picked_here() -> None:
    """on_change of the pick: this learner chose a head (a link's choice is not theirs)."""
    session.put(session.GPT_HEAD_PICKED, True)


def head_pick(result: TrainResult) -> bool:
    """Which head tells ねこ は from いぬ は? The learner picks one of the trained
    model's heads (kept in the URL, no choice at first); then whether it is (one
    of) the head(s) with the largest weight from は to its subject averaged over
    the corpus, and that weight. True when it is and the learner chose it here."""
    config = result.config
    places = [(b + 1, h + 1) for b in range(config.n_blocks) for h in range(config.n_heads)]
    names = [t("capstone.attn.place", block=b, head=h) for b, h in places]  # read once, here
    choice = bound(
        st.selectbox,
        t("capstone.attn.roles.pick"),
        range(len(places)),
        index=None,
        format_func=names.__getitem__,
        placeholder=t("capstone.attn.roles.pick_placeholder"),
        key=PICK,
        on_change=picked_here,
    )
    found = subject_heads(result) if choice is not None else None
    if found is None:
        st.caption(t("capstone.attn.roles.pick_wait"))
        return False
    st.markdown(pick_text(found, places[choice]))
    return places[choice] in found.places and bool(session.get(session.GPT_HEAD_PICKED))


def pick_text(found: SubjectHeads, pick: tuple[int, int]) -> str:
    """Whether ``pick`` (block, head) is (one of) the best, its mean weight from は to
    its subject over the corpus, and the best one(s): a tie named as a tie."""
    block, head = pick
    right = pick in found.places
    where = [t("capstone.attn.place", block=b, head=h) for b, h in found.places]
    return t(
        f"capstone.attn.roles.{'right' if right else 'wrong'}.{'one' if len(where) == 1 else 'tie'}",
        pick=t("capstone.attn.place", block=block, head=head),
        wa=WA,
        weight=pct(found.weight(block, head)),
        best=pct(found.best),
        places=ranking.joined(where),
        n_tied=len(where),
        n=found.sentences,
    )

"""The trained model's attention maps, and where は looks back."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from course_app import charts, gloss, md_escape, pct, ranking, t, views
from lesson_core.attention import causal_mask
from lesson_core.capstone import (
    WA,
    LookBack,
    look_back,
)
from lesson_core.examples import CORPUS
from lesson_core.rounding import fixed_array
from lesson_core.transformer import (
    Config,
    TrainResult,
    attention_maps,
    with_bos,
)
from lessons.capstone.predictions import prefix_text, token_select

HEADS_PER_ROW = 4

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


def attention_section(result: TrainResult) -> None:
    """Pick a corpus sentence; every block's heads as small heatmaps (causal mask
    grey), and the number that says whether は looks back at the token before it."""
    sentence = token_select(t("capstone.attn.sentence"), CORPUS, CORPUS[0], "gpt_sentence")
    maps = attention_maps(result.params, result.config, result.vocab, sentence)
    look_back_text(look_back(maps, sentence))
    labels = views.distinct_labels(with_bos(sentence))
    glossed = " ".join(gloss(tok) for tok in sentence)
    st.caption(t("capstone.attn.how_to_read", sentence=md_escape(glossed), min=pct(SMALL_MAP_TEXT, 0)))
    head_grid(result.config, labels, maps, sentence)


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


def head_grid(config: Config, labels: Sequence[str], maps: np.ndarray, sentence: Sequence[str]) -> None:
    """Every block under its own title, its heads HEADS_PER_ROW to a row.

    Shapes: maps [n_blocks, h, n, n], labels [n]"""
    heads = config.n_heads
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

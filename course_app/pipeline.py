"""The whole path to the next token, and the lesson that teaches each part of it:
tokens → embedding + position → a block (LayerNorm, attention, a residual add,
LayerNorm, the feed-forward layer, a residual add: pre-norm, as
``lesson_core.transformer.layers.block``) × N → LayerNorm, logits → softmax → sample.

Data first (``PARTS``: each part's catalog key and its lesson; ``BOXES``: the
figure's boxes), then the two ways the course draws it: ``path_line``, one
line of links at the top of every lesson (the lesson's own parts in bold),
and ``path_figure``, the same path as boxes and arrows
(``charts.pipeline_spec``), on the home page with names only and in the
capstone with its model's sizes.

Links are built by the caller's ``href`` (``page.page_href``: the menu's
query parameters, language and progress), so this module imports no page
furniture.

Catalog entries: ``pipeline.part.<id>`` (the line's words), ``pipeline.line``
(the line, one placeholder per part), ``pipeline.box.<id>`` / ``<id>_sub``
(the figure's boxes), ``pipeline.repeat`` / ``around`` (the frame's notes),
``pipeline.alt``, ``said``, ``then``, ``carries`` (the figure in words).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import streamlit as st

from course_app import charts, course
from course_app.i18n import t

Href = Callable[[str], str]  # a page's path (course.PAGES) -> the address a link goes to


@dataclass(frozen=True)
class Part:
    """One part of the path (``pipeline.part.<id>``) and the lesson that teaches it."""

    id: str
    lesson: str


PARTS: tuple[Part, ...] = (
    Part("tokens", "bigram"),  # the next token from the tokens so far
    Part("embedding", "positional"),  # a vector per token, plus its position
    Part("attention", "attention"),  # inside the block: query, key, value, the weighted average
    Part("scaling", "scaling"),  # the scores divided by √d_k
    Part("mask", "causal_mask"),  # no look at later tokens
    Part("heads", "multi_head"),  # several heads side by side
    Part("mlp", "capstone"),  # the feed-forward layer
    Part("norm", "capstone"),  # LayerNorm before each of the two (pre-norm) and before the logits
    Part("residual", "capstone"),  # each one's output added back to its input
    Part("logits", "capstone"),
    Part("softmax", "capstone"),
    Part("sample", "capstone"),
    Part("today", "todays_llms"),  # what today's models change along the same path
)
BY_PART = {part.id: part for part in PARTS}

# The figure's boxes, top to bottom; those from BLOCK[0] to BLOCK[1] make the
# block, repeated N times. A block is pre-norm: LayerNorm inside each box
# before its layer, each "+" the residual add of the box above it.
BOXES: tuple[str, ...] = (
    "tokens",
    "embedding",
    "attention",
    "add_attention",
    "mlp",
    "add_mlp",
    "logits",
    "softmax",
    "sample",
)
BLOCK = (2, 5)


def parts_of(lesson_id: str) -> tuple[str, ...]:
    """The parts a lesson teaches (its bold words on the line)."""
    return tuple(part.id for part in PARTS if part.lesson == lesson_id)


def path_line(current: str | None, href: Href) -> str:
    """The path as one line of markdown: each part a link to its lesson
    (``href`` of the lesson's page), the parts of lesson ``current`` in bold."""

    def link(part: Part) -> str:
        # Bold inside the link's brackets: "**[…](…)**つき" is no bold in
        # CommonMark (a closing ** between ")" and a letter closes nothing).
        name = t(f"pipeline.part.{part.id}")
        shown = f"**{name}**" if part.lesson == current else name
        return f"[{shown}]({href(course.BY_ID[part.lesson].page)})"

    return t("pipeline.line", **{part.id: link(part) for part in PARTS})


def show_line(current: str | None, href: Href) -> None:
    """Draw the line, small: one caption element (a first load counts elements)."""
    st.caption(path_line(current, href))


def box_names() -> list[str]:
    """Each box's name (``pipeline.box.<id>``)."""
    return [t(f"pipeline.box.{box}") for box in BOXES]


def box_labels() -> list[tuple[str, str]]:
    """Each box's name and the line under it (``pipeline.box.<id>`` / ``.<id>_sub``)."""
    return [(t(f"pipeline.box.{box}"), t(f"pipeline.box.{box}_sub")) for box in BOXES]


def path_figure(
    boxes: Sequence[tuple[str, str]], arrows: Sequence[str], repeat: tuple[str, str], alt_text: str
) -> None:
    """The path as boxes and arrows: ``boxes`` (name, line under it) in the
    order of BOXES, the note on each arrow, the block's two notes."""
    data = charts.pipeline_frame(boxes, arrows, BLOCK, repeat)
    charts.show(data, charts.pipeline_spec(len(boxes)), alt_text)


def alt_text(boxes: Sequence[tuple[str, str]], arrows: Sequence[str], times: str) -> str:
    """The figure in words: each box with its line and the note on the arrow
    out of it, the block's boxes named as repeated ``times`` times."""
    words = []
    for i, (label, sub) in enumerate(boxes):
        said = t("pipeline.said", name=label, sub=sub) if sub else label
        if i < len(arrows) and arrows[i]:
            said += t("pipeline.carries", shape=arrows[i])
        words.append(said)
    first, last = BLOCK
    then = t("pipeline.then")
    return t(
        "pipeline.alt",
        before=then.join(words[:first]),
        block=then.join(words[first : last + 1]),
        after=then.join(words[last + 1 :]),
        times=times,
    )


def repeat_notes(times: int | str) -> tuple[str, str]:
    """The frame's two notes: "× N" and what a block is made of."""
    return t("pipeline.repeat", n=times), t("pipeline.around")


def home_figure(href: Href) -> None:
    """The home page's figure: the path with the parts' names, the block × N,
    then the line of links under it (for clicks and screen readers)."""
    boxes = box_labels()
    arrows = [""] * (len(boxes) - 1)
    path_figure(boxes, arrows, repeat_notes("N"), alt_text(boxes, arrows, "N"))
    show_line(None, href)

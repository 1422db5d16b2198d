"""The path to the next token drawn for this page's own model: the same boxes
as the home page's figure, with the sizes the learner set (d_model, heads,
blocks, vocabulary) and the shape of the array on each arrow."""

from __future__ import annotations

import streamlit as st

from course_app import fold, pipeline, t
from lesson_core.capstone import PipelineShapes, pipeline_shapes
from lesson_core.transformer import Config
from lessons.capstone.controls import VOCAB

FOLD = "capstone_pipeline"


def shape_text(shape: tuple[int | str, ...]) -> str:
    """An array's shape as the figure writes it: (n, 32) -> "n × 32"."""
    return " × ".join(str(axis) for axis in shape)


def model_boxes(config: Config, shapes: PipelineShapes, vocab_size: int) -> list[tuple[str, str]]:
    """The home page's boxes, each with this model's line under it."""
    subs = [
        t("pipeline.model.tokens_sub", v=vocab_size),
        t("pipeline.model.embedding_sub", d=config.d_model),
        t("pipeline.model.attention_sub", h=config.n_heads, shape=shape_text(shapes.head)),
        t("pipeline.box.add_attention_sub"),
        t("pipeline.model.mlp_sub", shape=shape_text(shapes.hidden)),
        t("pipeline.box.add_mlp_sub"),
        t("pipeline.model.logits_sub", v=vocab_size),
        t("pipeline.model.softmax_sub"),
        t("pipeline.box.sample_sub"),
    ]
    return list(zip(pipeline.box_names(), subs, strict=True))


def model_arrows(shapes: PipelineShapes) -> list[str]:
    """The shape on each arrow: what each box hands to the next one."""
    carried = (
        shapes.tokens,
        shapes.embedded,
        shapes.attention,
        shapes.residual,
        shapes.feed_forward,
        shapes.block,
        shapes.logits,
        shapes.next,
    )
    return [shape_text(shape) for shape in carried]


def model_path(config: Config) -> None:
    """The path with this model's sizes, under its own bold title: drawn inside
    the parameter table's fold (a fold in an open fold is its body), so a
    first load of the page sends nothing more."""
    if not (box := fold(t("pipeline.model.fold"), FOLD, icon=":material/account_tree:")):
        return
    vocab_size = len(VOCAB)
    shapes = pipeline_shapes(config, vocab_size)
    boxes, arrows = model_boxes(config, shapes, vocab_size), model_arrows(shapes)
    with box:
        st.markdown(
            t(
                "pipeline.model.body",
                d=config.d_model,
                h=config.n_heads,
                dh=config.d_head,
                b=config.n_blocks,
                v=vocab_size,
            )
        )
        repeat = pipeline.repeat_notes(config.n_blocks)
        pipeline.path_figure(boxes, arrows, repeat, pipeline.alt_text(boxes, arrows, str(config.n_blocks)))

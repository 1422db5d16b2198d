"""The pipeline map (course_app/pipeline.py): the path to the next token,
each part linked to the lesson that teaches it.

Layer 1: its shapes against a real forward pass of the mini GPT. Layer 2:
every lesson of the registry on the path, links to existing pages carrying the
language and the progress, the lesson's own parts in bold, every key in both
catalogs. Layer 3: the home page, a lesson and the capstone in both languages,
the capstone's figure read from the chart's data against lesson_core's sizes."""

from __future__ import annotations

import re
import string
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from helpers.apptest import assert_clean, chart_frames, open_page
from helpers.written_out import vocab_size

from course_app import charts, course, i18n, pipeline
from course_app.charts.boxes import ROW
from course_app.i18n import LANGS, catalog
from course_app.page import page_href
from lesson_core.capstone import BLOCKS, MAX_HEADS, TOKENS, WIDTH, head_options, pipeline_shapes
from lesson_core.examples import CORPUS
from lesson_core.transformer import Config, Vocab, forward, init_params

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\[(\*\*)?([^\]*]+)(\*\*)?\]\(([^)\s]+)\)")
PARAMS = {"lang": "en", "p": "at.111.000"}


@pytest.fixture
def in_lang(lang):
    """Run t() in ``lang`` outside a page (what a page run in it would set)."""
    i18n._this_run.lang = lang
    yield lang
    i18n.forget_lang()


def links(line: str) -> list[tuple[bool, str, str]]:
    """The line's links: (bold, text, address)."""
    return [(bool(a and b), text, href) for a, text, b, href in LINK.findall(line)]


def line_for(current: str | None, lang: str) -> str:
    return pipeline.path_line(current, lambda page: page_href(page, PARAMS | {"lang": lang}))


# --- layer 1: the shapes the figure writes are the forward pass's ---------------------------


@pytest.mark.parametrize(("d", "h", "blocks", "n"), [(8, 1, 1, 1), (8, 2, 2, 5), (16, 4, 1, 3)])
def test_shapes_are_those_of_a_real_forward_pass(d, h, blocks, n):
    vocab = Vocab.from_sentences(CORPUS)
    config = Config(d_model=d, n_heads=h, n_blocks=blocks)
    shapes = pipeline_shapes(config, len(vocab))
    ids = np.arange(n) % len(vocab)
    logits, cache = forward(init_params(config, len(vocab), np.random.default_rng(0)), ids, config)

    def real(shape):  # the token axis named in the figure, the number of tokens here
        return tuple(n if axis == TOKENS else axis for axis in shape)

    assert real(shapes.tokens) == cache.token_ids.shape
    first = cache.blocks[0]
    assert real(shapes.embedded) == first.attn.u.shape  # LN_1 of the embedded tokens, same shape
    assert real(shapes.attention) == first.attn.concat.shape
    assert shapes.head[1] * h == first.attn.concat.shape[1] and first.attn.weights.shape == (h, n, n)
    assert real(shapes.hidden) == first.ffn.act.shape == (n, 4 * d)
    assert real(shapes.residual) == real(shapes.feed_forward) == real(shapes.block) == first.ffn.u.shape
    assert real(shapes.logits) == logits.shape
    assert shapes.next == (len(vocab),) and shapes.sampled == (1,)
    assert len(cache.blocks) == blocks


# --- layer 2: the line and the catalogs -----------------------------------------------------


def test_every_lesson_of_the_registry_is_on_the_path():
    assert {part.lesson for part in pipeline.PARTS} == set(course.BY_ID)
    assert len(pipeline.BY_PART) == len(pipeline.PARTS)


def test_every_part_links_to_an_existing_lesson_page(in_lang):
    found = links(line_for(None, in_lang))
    assert [text for _, text, _ in found] == [t_part(in_lang, part.id) for part in pipeline.PARTS]
    pages = {course.url_path(lesson.page): lesson for lesson in course.LESSONS}
    for (_, _, href), part in zip(found, pipeline.PARTS, strict=True):
        path = urlsplit(href).path
        assert path in pages, href
        assert pages[path].id == part.lesson
        assert (ROOT / pages[path].page).is_file()


def t_part(lang: str, part: str) -> str:
    return catalog(lang)[f"pipeline.part.{part}"]


def test_links_carry_the_language_and_the_progress(in_lang):
    for _, _, href in links(line_for("attention", in_lang)):
        query = parse_qs(urlsplit(href).query)
        assert query == {"lang": [in_lang], "p": [PARAMS["p"]]}, href


@pytest.mark.parametrize("lesson", [lesson.id for lesson in course.LESSONS])
def test_only_the_lessons_own_parts_are_bold(lesson, in_lang):
    found = links(line_for(lesson, in_lang))
    bold = [text for is_bold, text, _ in found if is_bold]
    assert bold == [t_part(in_lang, part) for part in pipeline.parts_of(lesson)]
    assert bold, f"{lesson} has no part on the path"
    assert not any(is_bold for is_bold, _, _ in links(line_for(None, in_lang)))  # the home page's
    # No ** outside a link: "**[残差接続](…)**つき" renders its asterisks in
    # CommonMark (a closer between ")" and a letter closes nothing).
    assert "**" not in LINK.sub("", line_for(lesson, in_lang))


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("lang", LANGS)
def test_both_catalogs_have_every_key_of_the_map(lang):
    words = catalog(lang)
    assert placeholders(words["pipeline.line"]) == set(pipeline.BY_PART)
    for part in pipeline.PARTS:
        assert words[f"pipeline.part.{part.id}"]
    for box in pipeline.BOXES:
        assert words[f"pipeline.box.{box}"] and words[f"pipeline.box.{box}_sub"]
    for key in ("repeat", "around", "said", "then", "carries", "alt", "model.fold", "model.body"):
        assert words[f"pipeline.{key}"]
    mine = {key for key in words if key.startswith("pipeline.")}
    assert mine == {key for key in catalog(LANGS[0]) if key.startswith("pipeline.")}


# --- layer 3: the pages ---------------------------------------------------------------------


def figures(at) -> list:
    """The pipeline figures' data (charts with boxes, arrows and a frame)."""
    return [f for f in chart_frames(at) if {"kind", "label", "arrow", "in_block"} <= set(f.columns)]


def figure(at):
    (frame,) = figures(at)
    return frame


def test_home_page_opens_with_the_map(lang):
    at = open_page(None, lang)
    assert_clean(at)
    frame = figure(at)
    boxes = frame[frame.kind == "box"]
    assert list(boxes.label) == [catalog(lang)[f"pipeline.box.{box}"] for box in pipeline.BOXES]
    first, last = pipeline.BLOCK
    assert list(boxes.in_block) == [first <= i <= last for i in range(len(pipeline.BOXES))]
    (line,) = [c.value for c in at.caption if "](" in c.value and "attention?" in c.value]
    assert len(links(line)) == len(pipeline.PARTS)
    assert all(f"lang={lang}" in href for _, _, href in links(line))


def test_a_lesson_opens_with_its_line_and_its_part_in_bold(lang):
    at = open_page("pages/2_attention.py", lang, {"p": "at.111.000"})
    assert_clean(at)
    (line,) = [c.value for c in at.caption if c.value.count("](") == len(pipeline.PARTS)]
    found = links(line)
    assert [text for bold, text, _ in found if bold] == [t_part(lang, "attention")]
    progress = at.query_params["p"]
    progress = progress[0] if isinstance(progress, list) else progress
    assert all(parse_qs(urlsplit(href).query) == {"lang": [lang], "p": [progress]} for _, _, href in found)
    assert not figures(at)  # the figure costs a lesson's first load nothing


CAPSTONE = "pages/7_capstone.py"
LARGEST = max(range(WIDTH[0], WIDTH[1] + 1, WIDTH[2]), key=lambda d: (max(head_options(d, MAX_HEADS)), d))


@pytest.mark.parametrize(
    "values",
    [
        {},  # the defaults: the configuration the page trains first
        {"gpt_width": str(WIDTH[0]), "gpt_heads": "1", "gpt_blocks": str(BLOCKS[0])},
        {
            "gpt_width": str(LARGEST),
            "gpt_heads": str(max(head_options(LARGEST))),
            "gpt_blocks": str(BLOCKS[-1]),
        },
    ],
)
def test_capstone_figure_has_the_models_real_sizes(values, lang):
    at = open_page(CAPSTONE, lang, values, folds=True)
    assert_clean(at)
    default = Config()
    d = int(values.get("gpt_width", default.d_model))
    h = int(values.get("gpt_heads", default.n_heads))
    blocks = int(values.get("gpt_blocks", default.n_blocks))
    assert (at.slider(key="gpt_width").value, at.select_slider(key="gpt_heads").value) == (d, h)
    v = vocab_size()
    frame = figure(at)
    boxes, (block,) = frame[frame.kind == "box"], frame[frame.kind == "frame"].itertuples()
    x = f"{TOKENS} × {d}"
    assert list(boxes.arrow)[:-1] == [TOKENS, x, x, x, x, x, f"{TOKENS} × {v}", str(v)]
    assert block.label == catalog(lang)["pipeline.repeat"].format(n=blocks)
    subs = dict(zip(pipeline.BOXES, boxes["sub"], strict=True))
    assert subs["attention"] == catalog(lang)["pipeline.model.attention_sub"].format(
        h=h, shape=f"{TOKENS} × {d // h}"
    )
    assert subs["mlp"] == catalog(lang)["pipeline.model.mlp_sub"].format(shape=f"{TOKENS} × {4 * d}")
    assert subs["tokens"] == catalog(lang)["pipeline.model.tokens_sub"].format(v=v)
    assert subs["embedding"] == catalog(lang)["pipeline.model.embedding_sub"].format(d=d)


def test_the_figure_frame_checks_its_arguments_and_the_spec_fits_its_rows():
    boxes = [("a", ""), ("b", "sub"), ("c", "")]
    with pytest.raises(ValueError, match="need 2 arrows"):
        charts.pipeline_frame(boxes, ["x"], (1, 1), ("× N", ""))
    with pytest.raises(ValueError, match="not within"):
        charts.pipeline_frame(boxes, ["x", "y"], (1, 3), ("× N", ""))
    data = charts.pipeline_frame(boxes, ["x", "y"], (1, 2), ("× N", "note")).to_pydict()
    assert data["kind"] == ["box", "box", "box", "frame"]
    assert data["in_block"] == [False, True, True, True]
    assert (data["i"][-1], data["last"][-1]) == (1, 2)
    assert charts.pipeline_spec(len(pipeline.BOXES))["height"] == ROW * len(pipeline.BOXES)

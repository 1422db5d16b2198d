"""Lesson 1 — what a bigram cannot see, and why a plain average does not fix it."""

from collections.abc import Sequence

import streamlit as st

from course_app import (
    MAIN_FIGURE,
    fold,
    gloss,
    lesson_end,
    md_escape,
    num,
    page_start,
    pct,
    section_fold,
    section_start,
    snippets,
    t,
    terms,
    try_this,
    vec,
)
from lesson_core import equal_average
from lesson_core.bigram import blind_spot, compare_prefix, follows, total_variation
from lesson_core.examples import CAT_WA, CHAPTER, CORPUS, DOG_WA
from lessons.bigram import parts

LESSON, WA = "bigram", "は"
Sentence = tuple[str, ...]  # a sentence of the corpus: its tokens
CONTENT = [CHAPTER.index(tok) for tok in ("ねこ", "ひるね", "すき")]


def main() -> None:
    page_start(LESSON)

    corpus_lab()
    uniform_section()
    lesson_end(LESSON)


@st.fragment
def corpus_lab() -> None:
    """Sections 1 to 4 on the corpus the learner can extend: one fragment, so an
    added sentence reruns the counts, the blind spot and the lab with it."""
    added = parts.added_sentences(CORPUS)
    sentences = [*CORPUS, *added]
    corpus_section(added)
    counts_section(sentences)
    blind_section(sentences)
    lab(sentences)


@st.fragment
def lab(sentences: list[Sentence]) -> None:
    """4. The lab and the lesson's tasks, a fragment of its own inside the corpus's:
    moving its controls reruns the lab alone; an added sentence reruns both."""
    prefix, agree = lab_section(sentences)
    checks = {
        "t1": len(prefix) >= 2 and prefix[-1] == WA and prefix != CAT_WA,
        "t2": follows(sentences, WA) != follows(CORPUS, WA),
        "t3": agree and len(prefix) >= 2,
    }
    try_this(LESSON, checks)


def corpus_section(added: Sequence[Sentence]) -> None:
    """1. The corpus, and the learner's own sentences added to it."""
    section_start("bigram.corpus", terms=("token", "bigram", "corpus"), n=len(CORPUS))
    parts.corpus_editor(CORPUS, added)


def counts_section(sentences: Sequence[Sentence]) -> None:
    """2. How often each token follows each other token: a fold named after its header."""
    if box := section_fold("bigram.counts", "bigram_counts"):
        with box:
            st.markdown(t("bigram.counts.body"))
            parts.count_map(sentences)


def blind_section(sentences: Sequence[Sentence]) -> None:
    """3. The bigram's blind spot: ねこ は and いぬ は get the same next-token guess."""
    cat, dog = compare_prefix(sentences, CAT_WA), compare_prefix(sentences, DOG_WA)
    section_start(
        "bigram.blind",
        terms=("prefix", "total_variation"),
        bigram_top=parts.top_text(cat.vocab, cat.bigram),
        n_wa=cat.n_bigram,
        cat_top=parts.top_text(cat.vocab, cat.corpus),
        dog_top=parts.top_text(dog.vocab, dog.corpus),
        same=pct(total_variation(cat.bigram, dog.bigram)),
        apart=pct(total_variation(cat.corpus, dog.corpus)),
        cat_tv=pct(cat.tv),
        dog_tv=pct(dog.tv),
    )
    if box := fold(t("ui.fold.worked"), "bigram_blind", icon=":material/table:"):
        with box:
            parts.blind_spot_table(blind_spot(sentences, WA))
            st.caption(t("bigram.blind.tv_help"))


def lab_section(sentences: Sequence[Sentence]) -> tuple[Sentence, bool]:
    """4. The lab: a prefix of the learner's choice, the bigram's guess beside the
    corpus's; returns the prefix and whether the two agree."""
    section_start("bigram.lab")
    prefix = parts.prefix_controls(sentences)
    comp = compare_prefix(sentences, prefix)
    last = md_escape(gloss(prefix[-1]))
    st.markdown(t("bigram.lab.prefix", prefix=parts.md_glossed(prefix), last=last))
    with st.container(key=MAIN_FIGURE):
        parts.compare_bars(comp)
    snippets.code_fold("bigram_code", lambda: compare_code(sentences, prefix), LESSON)
    st.markdown(
        t(
            "bigram.lab.numbers",
            last=last,
            n_bigram=comp.n_bigram,
            bigram_top=parts.top_text(comp.vocab, comp.bigram),
            n_corpus=comp.n_corpus,
            corpus_top=parts.top_text(comp.vocab, comp.corpus),
            tv=pct(comp.tv),
        )
    )
    agree = comp.tv < 1e-9
    (st.success if agree else st.info)(t("bigram.lab.agree" if agree else "bigram.lab.differ", n=len(prefix)))
    return prefix, agree


def compare_code(sentences: Sequence[Sentence], prefix: Sentence) -> snippets.Snippet:
    """The code behind the lab's bars: the course's corpus, the learner's own
    sentences written in, and the one call that compares the two guesses."""
    added = [tuple(s) for s in sentences[len(CORPUS) :]]
    own = "".join(f"    {snippets.literal(sentence)},\n" for sentence in added)  # one sentence per line
    lines = [f"sentences = [\n    *CORPUS,\n{own}]" if added else "sentences = CORPUS"]
    lines.append(f"comp = compare_prefix(sentences, {snippets.literal(tuple(prefix))})")
    shows = ["comp.bigram[comp.shown]", "comp.corpus[comp.shown]"]
    data = [("lesson_core.examples", "CORPUS")]
    series = [
        (t("bigram.lab.series_bigram", last=prefix[-1]), shows[0]),
        (t("bigram.lab.series_corpus", prefix=" ".join(prefix)), shows[1]),
    ]
    labels = "[comp.vocab[i] for i in comp.shown]"
    plot = snippets.Plot("bars", labels, series, t("bigram.lab.x_title"), t("bigram.lab.y_title"))
    return snippets.Snippet(uses=[compare_prefix], lines=lines, shows=shows, data=data, plot=plot)


def uniform_section() -> None:
    """5. Example A with a plain average: every token gets the same weight. A
    step past the bigram: the whole section is a fold named after its header."""
    if box := section_fold("bigram.uniform", "bigram_uniform"):
        with box:
            uniform_body()


def uniform_body() -> None:
    plain, content = equal_average(CHAPTER.vectors), equal_average(CHAPTER.vectors[CONTENT])
    last = len(CHAPTER.tokens) - 1
    st.markdown(t("bigram.uniform.body", n=len(CHAPTER.tokens), each=num(plain.weights[last, 0], 1)))
    terms("embedding")
    parts.uniform_table(CHAPTER.tokens, CHAPTER.vectors, plain.weights[last])
    st.markdown(
        t(
            "bigram.uniform.result",
            wa=gloss(WA),
            wa_weight=pct(plain.weights[last, CHAPTER.index(WA)]),
            mixed=vec(plain.output[last]),
            content=vec(content.output[0]),
        )
    )
    parts.uniform_map(CHAPTER.tokens, plain.weights)
    particles = plain.weights[0, CHAPTER.index(WA)] + plain.weights[0, CHAPTER.index("が")]
    st.markdown(
        t(
            "bigram.uniform.why",
            mixed=vec(plain.output[0]),
            nap_weight=pct(plain.weights[0, CHAPTER.index("ひるね")]),
            particles=pct(particles),
        )
    )

"""The one call at the top of every page, and the course furniture around a lesson:
language switch, translated menu, progress kept in the URL, "try this" tasks,
quizzes and the previous / next links."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from urllib.parse import unquote_plus, urlencode

import streamlit as st

from course_app import browser, charts, course, pipeline, progress, session, url
from course_app.a11y import plain_maths
from course_app.blas import one_blas_thread
from course_app.classroom import learner as classroom
from course_app.folds import fold
from course_app.i18n import LANGS, current_lang, forget_lang, t, t_list
from course_app.memory import compact_malloc
from course_app.streamlit_private import raw_query_string

one_blas_thread()  # every page imports this module: the whole server process
compact_malloc()

PROGRESS_PARAM = url.PROGRESS

# Our own fixed stylesheet (never text a learner typed). A display formula
# wider than a phone scrolls sideways instead of being cut off, and on a
# narrow screen formulas use the body text size instead of KaTeX's 1.21 em.
# Captions get the text colour at 80 % instead of Streamlit's 60 % (4.4 : 1
# on white): about 8 : 1 on white and on the sidebar's and the info boxes'
# backgrounds, and as readable in the dark theme (a fixed grey was not). The
# browser bridge has no visible part. The language switch at the top of the
# page is for a phone, whose sidebar is closed (Streamlit closes it below
# 768 px); a wider screen has the sidebar's. A link in the page (the home
# page's course map) wraps instead of being cut with an ellipsis on a phone.
# On a phone an open fold takes the page's whole width (no side border nor
# padding), as its charts need it. A figure column marked sticky stays in
# view while the learner moves the controls beside it (a wide screen) or below
# it (a phone, where the figure stays pinned under the top bar, on the theme's
# background (.streamlit/config.toml's two themes), until the controls have
# scrolled past). On a touch screen, which cannot hover, a code block's copy
# button (the share link's) is always shown. The uploader's size
# limit is said by our own caption; on Japanese pages (<html lang="ja">, set
# by the bridge) Streamlit's English-only hints are hidden or relabelled
# (see browser.py). A link's underline sits below the letters, so that an
# underscore in it (W_O, √d_k in the glossary's index) stays visible.
# A toast (a task done, a link's value refused) shows at the bottom left: on a
# wide screen over the sidebar's empty foot, never over the lesson's column,
# whose top right holds the help beside a figure; on a phone at the bottom,
# clear of the title and the controls at the top (Streamlit's own place).
# Text a chart writes on the page's own background (a value over its bar, the
# names in the path's boxes) has Vega's default colour, black, which the dark
# theme's background would swallow: it takes the theme's text colour, as the
# axes do (a heatmap's text on light cells is spelled #000000 and stays black);
# so does a title's second line (a map's note), which Streamlit's chart theme
# leaves black too.
# A keyboard's focus is seen everywhere: Streamlit draws a ring on buttons,
# folds and inputs, but none on a page link (the menu, the lesson footer), a
# quiz's option or the lesson's column (a stop of its own: arrow keys scroll
# it), and a chart's toolbar stays transparent while its buttons have the
# focus (it shows on hover only); these get a ring in the theme's text
# colour, and the toolbar shows while it holds the focus.
# A primary button's label is white in both themes (Streamlit's); on the dark
# theme's light blue that is 2.3 : 1, so there it takes the dark background's
# colour (about 8 : 1).
# Printed (a browser's Print, or Save as PDF), a lesson is laid out on A4: its
# text, formulas, charts and tables and its open folds, without the menu, the
# top bar, any control (a slider, a choice, a button, a link) or a closed
# fold's label; a sticky figure stays in its place, and a chart, a formula or
# a table is not cut between two sheets.
# A code block's syntax colours are Streamlit's, the same in both themes, and
# several fall under 4.5 : 1 on its background (a keyword 3.7 : 1 in the
# light theme, 4.2 : 1 in the dark, a string 2.9 : 1 in the light): each kind
# of token gets a colour of the same hue at 5.7 : 1 or more, per theme.
# --course-style tells that this stylesheet is applied (the browser tests wait for it).
NARROW_SCREEN_CSS = """<style>
:root { --course-style: 1; }
.katex-display { overflow-x: auto; overflow-y: hidden; padding-bottom: 0.25rem; }
@media (max-width: 640px) { .katex-display > .katex { font-size: 1em; } }
@media (max-width: 640px) {
  [data-testid="stExpander"] details { border-left: none; border-right: none; border-radius: 0; }
  [data-testid="stExpander"] [data-testid="stExpanderDetails"] { padding-left: 0; padding-right: 0; }
}
.stApp [data-testid="stCaptionContainer"] { opacity: 1; }
.stApp [data-testid="stCaptionContainer"] { color: color-mix(in srgb, currentColor 80%, transparent); }
.stApp [data-testid="stCaptionContainer"] p { color: inherit; }
.st-key-browser_bridge { display: none; }
@media (hover: none) {
  [data-testid="stCode"] :is(:has(button[kind="elementToolbar"]), button[kind="elementToolbar"]) {
    opacity: 1; visibility: visible;
  }
}
@media (min-width: 768px) { .st-key-lang_choice_top { display: none; } }
[data-testid="stColumn"]:has(.st-key-sticky_figure) { position: sticky; top: 4rem; align-self: flex-start; }
@media (max-width: 640px) {
  [data-testid="stColumn"]:has(.st-key-sticky_figure) {
    top: 3.75rem; z-index: 3; background-color: #ffffff; box-shadow: 0 1px 0 rgba(128, 128, 128, 0.35);
  }
}
@media (max-width: 640px) and (prefers-color-scheme: dark) {
  [data-testid="stColumn"]:has(.st-key-sticky_figure) { background-color: #12161c; }
}
@media (prefers-color-scheme: dark) {
  .stApp button[kind^="primary"], .stApp button[kind^="primary"] p { color: #12161c; }
}
[data-testid="stMain"] [data-testid="stPageLink-NavLink"] span,
[data-testid="stMain"] [data-testid="stPageLink-NavLink"] p {
  white-space: normal; overflow: visible; text-overflow: clip;
}
html:lang(ja) [data-testid="InputInstructions"] > span:first-child { display: none; }
[data-testid="stFileUploaderDropzoneInstructions"] { display: none; }
.stApp a { text-underline-offset: 0.3em; }
[data-testid="stVegaLiteChart"] .role-mark text[fill="black"] { fill: currentColor; }
[data-testid="stVegaLiteChart"] .role-title-subtitle text { fill: currentColor; }
.stApp [data-testid="stPageLink-NavLink"]:focus-visible,
.stApp [data-testid="stElementToolbar"] button:focus-visible,
.stApp [data-testid="stRadio"] label:has(input:focus-visible) {
  outline: 2px solid currentColor; outline-offset: 2px; border-radius: 0.25rem;
}
.stApp [data-testid="stElementToolbar"]:focus-within { opacity: 1; }
.stApp [data-testid="stMain"]:focus-visible { outline: 2px solid currentColor; outline-offset: -2px; }
.stApp [data-testid="stCode"] .token:is(.keyword, .function, .class-name, .decorator) { color: #0b5cad; }
.stApp [data-testid="stCode"] .token:is(.string, .char) { color: #0a6e2c; }
.stApp [data-testid="stCode"] .token:is(.number, .boolean) { color: #0b6b5f; }
.stApp [data-testid="stCode"] .token.operator { color: #a8440a; }
.stApp [data-testid="stCode"] .token:is(.punctuation, .comment) { color: #555a69; }
@media (prefers-color-scheme: dark) {
  .stApp [data-testid="stCode"] .token:is(.keyword, .function, .class-name, .decorator) { color: #6cb4ff; }
  .stApp [data-testid="stCode"] .token:is(.string, .char) { color: #5fd07d; }
  .stApp [data-testid="stCode"] .token:is(.number, .boolean) { color: #4fd1c0; }
  .stApp [data-testid="stCode"] .token.operator { color: #f59a55; }
  .stApp [data-testid="stCode"] .token:is(.punctuation, .comment) { color: #a3a8b8; }
}
body [data-testid="stToastContainer"] { top: auto; bottom: 1rem; left: 0.75rem; right: auto; }
@page { size: A4; margin: 14mm 12mm; }
@media print {
  [data-testid="stSidebar"], [data-testid="stHeader"], [data-testid="stToastContainer"],
  [data-testid="stElementToolbar"], [data-testid="stSidebarCollapsedControl"],
  .stApp :is([data-testid="stSlider"], [data-testid="stSelectbox"], [data-testid="stRadio"],
    [data-testid="stCheckbox"], [data-testid="stNumberInput"], [data-testid="stTextInput"],
    [data-testid="stButton"], [data-testid="stFormSubmitButton"], [data-testid="stDownloadButton"],
    [data-testid="stFileUploader"], [data-testid="stForm"], [data-testid="stPageLink"],
    [data-testid="stPopover"], [data-testid="stFeedback"], [data-testid="stMultiSelect"]),
  [data-testid="stExpander"]:has(details:not([open])) { display: none !important; }
  [data-testid="stColumn"]:has(.st-key-sticky_figure) { position: static !important; box-shadow: none; }
  .stApp :is([data-testid="stVegaLiteChart"], .katex-display, [data-testid="stDataFrame"],
    [data-testid="stCode"]) { break-inside: avoid; }
}
html[style*="--upload-label"]:lang(ja) [data-testid="stFileUploaderDropzone"] button p { font-size: 0; }
html[style*="--upload-label"]:lang(ja) [data-testid="stFileUploaderDropzone"] button p::after {
  content: var(--upload-label); font-size: 0.875rem;
}
</style>"""


def setup_page(lesson_id: str | None = None) -> str:
    """Set up a page: title, language, menu, progress. Returns the language.

    ``lesson_id`` is None for the home page; a lesson page passes its id and
    is counted as visited (the glossary passes "glossary", which is not counted).
    """
    forget_lang()  # a rerun may reuse the previous run's thread
    session.pop(session.ONE_SHOT, None)
    browser.take_stored_lang()
    rescue_crowded_url()
    lang = current_lang()
    sidebar_switch, top_switch = session.LANG_SWITCHES
    language_switch(st.sidebar, sidebar_switch, lang)
    title = t(f"{lesson_id}.title") if lesson_id else t("home.title")
    st.set_page_config(page_title=f"{title} · {t('ui.app_name')}", page_icon="🔍", layout="wide")
    charts.start_exports(title)
    st.html(NARROW_SCREEN_CSS)  # style only: Streamlit puts it in no visible place
    language_switch(st, top_switch, lang, label_visibility="collapsed")  # shown on a phone only (the CSS)
    if url.get(url.LANG) not in (None, lang):  # a language the course does not have
        url.put(url.LANG, lang)
        st.toast(t("ui.lang_unknown"), icon="⚠️")
    enter_page(lesson_id)
    learner = load_progress()
    if lesson_id in course.BY_ID and lesson_id not in learner.visited:
        learner.visited.add(lesson_id)
    save_progress(learner)  # also puts the URL right when it disagrees with the session
    if (kept := browser.sync(lang, learner)) is not None:  # progress kept in this browser
        save_progress(learner := kept)
    if done := session.pop(session.COMPLETED, None):
        st.toast(t(done), icon="🎉")
    draw_menu(lang, learner)
    classroom.learner_panel(lesson_id)  # a class's join / leave, and a joined learner's visit
    return lang


# Streamlit ignores a whole query string with more than 1,000 parameters or
# 512 Ki characters (the URL then holds none: url.count() is 0). The language and the
# progress are read from the raw string instead, and everything else dropped.
_CROWDED_FIELDS, _CROWDED_CHARS = 1000, 512 * 1024
_KEPT = (url.LANG, url.PROGRESS)


def rescue_crowded_url() -> None:
    """Keep ``lang`` and ``p`` from a URL Streamlit refused for its size, and
    drop every other parameter (a link that long was never made by this app)."""
    raw = raw_query_string()
    if url.count() or not raw:
        return
    if raw.count("&") + 1 <= _CROWDED_FIELDS and len(raw) <= _CROWDED_CHARS:
        return
    kept = {}
    for name in _KEPT:
        values = re.findall(rf"(?:^|&){name}=([^&]{{0,{progress.MAX_LENGTH * 3}}})(?=&|$)", raw)
        if values:
            kept[name] = unquote_plus(values[-1])
    url.replace(kept)
    forget_lang()
    st.toast(t("ui.url_crowded", n=raw.count("&") + 1), icon="⚠️")


def enter_page(page_id: str | None) -> None:
    """On the first run of a page (opened, or come back to from another page),
    forget what its tasks' checks were: try_this judges them afresh."""
    if session.get(session.TASK_PAGE, "") != page_id or not session.has(session.TASK_SEEN):
        session.put(session.TASK_PAGE, page_id)
        session.put(session.TASK_SEEN, {})


def made_true(lesson_id: str, checks: dict[str, bool]) -> set[str]:
    """The tasks (as "<lesson>.<task>") whose check this run made true after it
    had been false on this page: only the learner's own moves do that. A check
    that already holds on its first run, with the values a shared link (or a
    reload) put in the URL, ticks nothing; the learner makes it false and true
    again. So a page calls try_this on every run of its section, from the first."""
    seen = session.setdefault(session.TASK_SEEN, {})
    made = set()
    for tid, ok in checks.items():
        task = f"{lesson_id}.{tid}"
        if ok and seen.get(task) is False:
            made.add(task)
        seen[task] = bool(ok)
    return made


def language_switch(where, key: str, lang: str, **options) -> None:
    """A language switch (``where``: st or st.sidebar) under ``key``; it is kept
    in the session only, never in the URL (?lang= is set by _switch_language)."""
    # The switch follows the URL on every run (after the browser's Back button
    # the session still holds the language the learner had switched to).
    session.put(key, lang)
    where.segmented_control(
        "言語 / Language",
        LANGS,
        format_func=lambda code: t(f"ui.lang_{code}"),
        key=key,
        on_change=_switch_language,
        args=(key,),
        required=True,
        **options,
    )


def _switch_language(key: str = session.LANG_SWITCHES[0]) -> None:
    """The language lives in the URL (?lang=), so links and reloads keep it,
    and in the browser, so the plain address opens in it (browser.choose_lang)."""
    url.put(url.LANG, session.get(key))
    browser.choose_lang(session.get(key))
    forget_lang()


def load_progress() -> progress.Progress:
    """Progress lives in session state; on a fresh session it is read from ?p=."""
    if not session.has(session.PROGRESS):
        learner, clean = progress.decode(url.get(url.PROGRESS) or "")
        session.put(session.PROGRESS, learner)
        if not clean:
            st.toast(t("ui.progress_unreadable"), icon="⚠️")
    return session.get(session.PROGRESS)


def completed(message_key: str | None) -> None:
    """Something new was completed: rerun the whole page at once, so the
    sidebar's counts (outside the fragment that noticed it) and the progress
    kept in the browser follow; the toast is shown by that run, and so are
    the one-shot notes this run already took (see one_shot)."""
    session.put(session.COMPLETED, message_key or "")
    session.update(session.pop(session.ONE_SHOT, {}))
    st.rerun(scope="app")


def one_shot(key: str, default=None):
    """Take a note meant to be shown once (e.g. "sentence added") out of the
    session state. If completed() reruns the app in the same run, the note is
    put back so that the rerun shows it again."""
    if not session.has(key):
        return default
    value = session.pop(key)
    session.setdefault(session.ONE_SHOT, {})[key] = value
    return value


def save_progress(learner: progress.Progress) -> None:
    """Keep the progress in the session and in the URL (?p=), so the two agree."""
    session.put(session.PROGRESS, learner)
    encoded = progress.encode(learner)
    if encoded:
        url.put(url.PROGRESS, encoded)
    else:
        url.drop(url.PROGRESS)


def link_params() -> dict[str, str]:
    """What a link to another page carries: the language and the progress."""
    params = {url.LANG: current_lang()}
    encoded = progress.encode(load_progress())
    if encoded:
        params[url.PROGRESS] = encoded
    return params | classroom.link_params()


def page_href(page: str, params: Mapping[str, str] | None = None) -> str:
    """A page's address for a markdown link (``page``: a path of ``course.PAGES``),
    relative to the page it is on (so it works under any base path), carrying
    ``params`` as ``page_link`` does (by default link_params())."""
    return f"{course.url_path(page)}?{urlencode(link_params() if params is None else params)}"


def hrefs() -> Callable[[str], str]:
    """``page_href`` with this run's link_params() read once, for a line of many
    links (the path to the next token has 13), each of which would otherwise
    encode the progress anew."""
    return functools.partial(page_href, params=link_params())


def page_link(
    lesson: course.Lesson | None, label: str | None = None, params: dict[str, str] | None = None
) -> None:
    """A link to a lesson (the home page for None), carrying ``params``
    (by default link_params(); the menu computes them once for all its links)."""
    page = lesson.page if lesson else course.HOME
    text = label or (t(f"{lesson.id}.menu") if lesson else t("home.menu"))
    st.page_link(page, label=text, query_params=link_params() if params is None else params)


def draw_menu(lang: str, learner: progress.Progress) -> None:
    """The sidebar: home, every lesson with its done/total, the glossary, and
    the overall progress."""
    lessons, params = course.LESSONS, link_params()
    with st.sidebar:
        page_link(None, params=params)
        counts = [learner.lesson_counts(lesson) for lesson in lessons]
        for lesson, (done, total) in zip(lessons, counts, strict=True):
            page_link(lesson, f"{t(f'{lesson.id}.menu')} · {done}/{total}", params)
        for extra in course.EXTRAS:
            st.page_link(extra.page, label=t(f"{extra.id}.menu"), icon=extra.icon, query_params=params)
        done, total = sum(c[0] for c in counts), sum(c[1] for c in counts)
        st.progress(done / max(total, 1), text=t("home.overall", done=done, total=total))


def try_this(lesson_id: str, checks: dict[str, bool], share: bool = True, **values: str) -> None:
    """The lesson's "try this" tasks, each ticked live once the learner makes its
    check hold (see made_true: not by opening a link that already satisfies it).

    ``checks`` maps task id -> whether the page's current state satisfies it;
    a task once done stays done (it is saved in the progress). ``values`` fill
    the placeholders of the task texts. A page whose sections are separate
    fragments calls it once per section with that section's tasks, and
    ``share=False`` on all but one."""
    learner = load_progress()
    newly = made_true(lesson_id, checks) - learner.tasks
    if newly:
        learner.tasks |= newly
        classroom.record_tasks(lesson_id, newly)
        save_progress(learner)
        completed("ui.task_done")
    lines = [f"**{t('ui.try_this')}**"]
    for tid in checks:
        done = f"{lesson_id}.{tid}" in learner.tasks
        mark = ":material/check_box:" if done else ":material/check_box_outline_blank:"
        lines.append(f"{mark} {t(f'{lesson_id}.task.{tid}', **values)}")
    # One element, a paragraph per task: each element is a message on every first load.
    st.container(border=True).markdown("\n\n".join(lines))
    if share:  # here, so that the link follows the demo's fragment reruns
        share_view()


def share_view() -> None:
    """A link that reopens this page with every control as it is now (the
    controls are bound to the URL, so the current query string is the state).
    The progress stays out: it is the sharer's, not part of the view. Like a
    glossary look-up, its content is drawn only while it is open: it sits in
    every demo's fragment, which a slider move reruns."""
    share = st.popover(t("ui.share"), icon=":material/link:", key=session.SHARE_VIEW, on_change="rerun")
    if not share.open:
        return
    params = url.everything() | {url.LANG: current_lang()}
    params.pop(url.PROGRESS, None)  # the view, not the sharer's progress
    params.pop(url.SEAT, None)  # nor the sharer's seat in a class
    link = f"{st.context.url or ''}?{urlencode(params)}"
    with share:
        st.caption(t("ui.share_help"))
        st.code(link, language=None, wrap_lines=True)


def quiz_message(right: bool, feedback: str) -> str:
    """What an answer shows: a right answer's feedback opens with its own
    verdict (そのとおり。/ Right.), so it stands alone; a wrong one is told
    plainly that it is not the answer (ui.wrong), near or far, then why."""
    return feedback if right else f"{t('ui.wrong')} {feedback}"


def quiz(lesson_id: str, quiz_id: str) -> None:
    """One multiple-choice question with feedback that explains every option.

    Catalog entries: <lesson>.quiz.<id>.question, .options (list) and
    .feedback (list, one per option); the right index is in course_app.course."""
    base = f"{lesson_id}.quiz.{quiz_id}"
    options, feedback = t_list(f"{base}.options"), t_list(f"{base}.feedback")
    choice = st.radio(
        t(f"{base}.question"),
        range(len(options)),
        index=None,
        format_func=lambda i: plain_maths(options[i]),  # a formula alone has no name a screen reader can say
        key=f"{lesson_id}_{quiz_id}",
    )
    if choice is None:
        return
    right = choice == course.BY_ID[lesson_id].quiz(quiz_id).answer
    classroom.record_answer(lesson_id, quiz_id, choice, right)
    (st.success if right else st.error)(quiz_message(right, feedback[choice]))
    learner = load_progress()
    if right and f"{lesson_id}.{quiz_id}" not in learner.quizzes:
        learner.quizzes.add(f"{lesson_id}.{quiz_id}")
        save_progress(learner)
        completed(None)  # the feedback above says it already


def quizzes(lesson_id: str) -> None:
    """Every quiz question of the lesson, under one header."""
    st.header(t("ui.quiz_header"))
    questions(lesson_id)


@st.fragment
def questions(lesson_id: str) -> None:
    """The lesson's questions, one fragment for all of them: an answer reruns
    the questions alone, and the whole page only when it completes a question
    for the first time (the sidebar's counts). One fragment, not one per
    question: each fragment costs a first load a container and a copy of the
    script's containers (docs/serving.md, "Folds")."""
    for question in course.BY_ID[lesson_id].quizzes:
        quiz(lesson_id, question.id)


def page_start(page_id: str | None = None, **intro_values: object) -> str:
    """How every page begins: the setup (language, menu, progress), the title
    and the introduction, with ``intro_values`` filled into its placeholders.
    Returns the language. ``page_id`` is None for the home page. A lesson's
    title is followed by the path to the next token, one line of links with
    the lesson's own parts in bold (``pipeline.show_line``).

    Catalog entries: <page>.title and <page>.intro."""
    lang = setup_page(page_id)
    st.title(t(f"{page_id or 'home'}.title"))
    if page_id in course.BY_ID:  # where this lesson sits on the path to the next token
        pipeline.show_line(page_id, hrefs())
    st.markdown(t(f"{page_id or 'home'}.intro", **intro_values))
    return lang


def lesson_end(lesson_id: str) -> None:
    """How every lesson ends: the takeaways (folded), the quiz, the question the next
    lesson answers, and the previous / next links.

    Catalog entries: <lesson>.end.takeaway and <lesson>.end.next."""
    if box := fold(t("ui.takeaway"), f"{lesson_id}_takeaway", icon=":material/summarize:"):
        with box:  # a recap: on a phone the main path goes on to the quiz
            st.markdown(t(f"{lesson_id}.end.takeaway"))
    quizzes(lesson_id)
    st.info(t(f"{lesson_id}.end.next"))
    lesson_footer(lesson_id)


def lesson_footer(lesson_id: str) -> None:
    """Previous / next lesson links (home when there is none)."""
    (before, after), params = course.neighbours(lesson_id), link_params()
    with st.container(horizontal=True, horizontal_alignment="distribute"):  # the next one at the right edge
        page_link(before, "← " + (t(f"{before.id}.menu") if before else t("home.menu")), params)
        page_link(after, (t(f"{after.id}.menu") if after else t("home.menu")) + " →", params)

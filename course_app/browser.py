"""The page's link to the learner's own browser, through one small component
(Streamlit's components v2: a few lines of JavaScript run in the page itself,
no iframe, no build step):

- ``<html lang>`` follows the chosen language, so screen readers read
  Japanese as Japanese and the browser picks Japanese fonts;
- a few repairs of what Streamlit draws or does (see _JS), among them keeping a
  glossary term at the top when a look-up's link opens the page at it;
- the progress is kept in the browser's local storage as well as in the URL
  (?p=), so opening the app again from its plain address in the same browser
  brings it back. The stored progress is merged (union) with the URL's once
  per session; afterwards every full run stores the union of what is stored
  and what the tab has (another tab of the same browser may have stored more);
- the language the learner chose is kept there too, and a page opened without
  ?lang= speaks it (i18n.resolve_lang), from the run after the browser's answer.
"""

from __future__ import annotations

import streamlit as st

from course_app import progress, session
from course_app.course import LESSONS
from course_app.i18n import LANGS, t

STORAGE_KEY = "attention-lessons.progress"
LANG_STORAGE_KEY = "attention-lessons.lang"

# data: {lang, storage_key, ready, save, order, upload_label, lang_key,
# langs, save_lang, known_lang}. The language: keep the one the learner chose
# (save_lang), and report the kept one while the server does not know it
# (known_lang). The progress: until the server has merged what the browser
# holds (ready false), report it; afterwards, store the union of what is
# stored and what the server sends.
# The rest keeps the page usable by keyboard and in the
# learner's language while Streamlit redraws it (a MutationObserver, at most
# once per animation frame): a formula wider than its box scrolls, so it gets
# tabindex=0 and can be scrolled from the keyboard; on a Japanese page the
# file uploader's English button reads the catalog's label instead
# (page.NARROW_SCREEN_CSS shows it from the --upload-label variable); on a
# phone, choosing a lesson in the sidebar closes the sidebar.
_JS = """
export default function (component) {
  const { data, setStateValue } = component;
  if (!data) return;
  const root = document.documentElement;
  if (data.lang && root.lang !== data.lang) root.lang = data.lang;
  root.style.setProperty("--upload-label", JSON.stringify(data.upload_label || ""));
  window.__attentionLessons = { uploadLabel: data.upload_label || "" };
  if (!window.__attentionLessonsObserver) {
    // Streamlit pushes a history entry whenever the app changes the query
    // string (the progress ?p=, a value put back in range), so a typed or
    // shared address got one or two entries more and Back stayed on the
    // lesson. A new query on the same page replaces the entry instead; a
    // change of page still adds one.
    const pushState = history.pushState.bind(history);
    history.pushState = (state, unused, url) => {
      const next = url == null ? location : new URL(url, location.href);
      if (next.pathname === location.pathname) return history.replaceState(state, unused, url);
      return pushState(state, unused, url);
    };
    // Arriving at a term's anchor (/glossary#dot-product from a look-up):
    // Streamlit scrolls to the heading as it mounts, but what stands above it
    // can still grow afterwards (fonts, formulas, a slow first run), leaving
    // the term off screen. So once the run is over, keep the target at the top
    // for a moment, unless the learner scrolls first.
    const IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]';
    const anchor = { href: "", timer: 0 };
    const stopSettling = () => { clearInterval(anchor.timer); anchor.timer = 0; };
    const settle = () => {
      let id = "";
      try {
        id = decodeURIComponent(location.hash.slice(1));
      } catch (e) {
        id = "";  // a malformed hash (%E0%A4%A): no term to keep in view, the rest goes on
      }
      if (anchor.href !== location.href) {
        stopSettling();
        anchor.href = location.href;
        if (!id) return;
        anchor.start = performance.now();
        anchor.seen = 0;
        anchor.timer = setInterval(settle, 200);
      }
      if (!anchor.timer) return;
      const now = performance.now();
      const target = document.getElementById(id);
      if (target && document.querySelector(IDLE)) {
        anchor.seen = anchor.seen || now;
        if (Math.abs(target.getBoundingClientRect().top) > 80) target.scrollIntoView({ block: "start" });
      }
      if ((anchor.seen && now - anchor.seen > 4000) || now - anchor.start > 30000) stopSettling();
    };
    ["wheel", "touchmove", "keydown", "mousedown"].forEach((type) =>
      window.addEventListener(type, stopSettling, { passive: true }));
    window.addEventListener("hashchange", settle);
    const tidy = () => {
      settle();
      document.querySelectorAll(".katex-display").forEach((el) => {
        if (el.scrollWidth > el.clientWidth) {
          if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
        } else if (el.getAttribute("tabindex") === "0") {
          el.removeAttribute("tabindex");
        }
      });
      // A look-up's "More in the glossary" is a markdown link, which Streamlit
      // opens in a new tab: one more tab at every look-up. The course moves
      // within one tab (the link carries ?lang= and the progress), so it opens
      // in this one; a modifier click can still ask the browser for a new tab.
      document.querySelectorAll('a[target="_blank"][href*="glossary?"]').forEach((el) => {
        const url = new URL(el.href, location.href);
        if (url.origin === location.origin && url.pathname.endsWith("/glossary")) {
          el.setAttribute("target", "_self");
          el.removeAttribute("rel");
        }
      });
      const label = root.lang === "ja" ? window.__attentionLessons.uploadLabel : "";
      document.querySelectorAll('[data-testid="stFileUploaderDropzone"] button').forEach((el) => {
        if (label && el.getAttribute("aria-label") !== label) el.setAttribute("aria-label", label);
        if (!label && el.hasAttribute("aria-label")) el.removeAttribute("aria-label");
      });
    };
    let queued = false;
    const later = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; tidy(); });
    };
    window.__attentionLessonsObserver = new MutationObserver(later);
    window.__attentionLessonsObserver.observe(document.body, { childList: true, subtree: true });
    window.addEventListener("resize", later);
    document.fonts.addEventListener("loadingdone", later);  // KaTeX's fonts change the widths
    document.fonts.ready.then(later);
    // On a phone the sidebar covers the page: close it once a lesson is chosen.
    document.addEventListener("click", (event) => {
      const link = event.target.closest && event.target.closest(
        '[data-testid="stSidebar"] [data-testid="stPageLink-NavLink"]');
      if (!link || !window.matchMedia("(max-width: 767.98px)").matches) return;
      setTimeout(() => {
        const close = document.querySelector(
          '[data-testid="stSidebar"] [data-testid="stSidebarCollapseButton"] button, '
          + '[data-testid="stSidebar"] [data-testid="stBaseButton-headerNoPadding"]');
        if (close) close.click();
      }, 0);
    }, true);
  }
  let keptLang = "";
  try {
    keptLang = window.localStorage.getItem(data.lang_key) || "";
    if (data.save_lang && keptLang !== data.save_lang) {
      window.localStorage.setItem(data.lang_key, data.save_lang);
      keptLang = data.save_lang;
    }
  } catch (e) {
    keptLang = "";  // storage blocked: the URL and the browser's locale still decide
  }
  // <html data-course-bridge>: "reporting" while a value of the browser's is
  // on its way to the server (the rerun it asks for is still to come), "idle"
  // once the server knows everything the browser holds.
  let reporting = false;
  if ((data.langs || []).includes(keptLang) && keptLang !== data.known_lang) {
    setStateValue("lang", keptLang);
    reporting = true;
  }
  let stored = "";
  try {
    stored = window.localStorage.getItem(data.storage_key) || "";
  } catch (e) {
    stored = "";  // storage blocked (private mode, policy): the URL still works
  }
  if (!data.ready) {
    setStateValue("stored", stored);
    root.dataset.courseBridge = "reporting";
    return;
  }
  root.dataset.courseBridge = reporting ? "reporting" : "idle";
  // Another tab of the same browser may have stored progress since: keep the
  // union of both (progress only grows), never overwrite it with this tab's.
  const save = unionProgress(stored, data.save, data.order || []);
  try {
    if (stored !== save) window.localStorage.setItem(data.storage_key, save);
  } catch (e) {}
}

// Two progress texts (progress.encode: "<code>.<task bits>.<quiz bits>" per
// visited lesson, joined by "_") -> one holding everything either holds, in
// course order. Groups that do not parse or name no lesson are dropped.
function unionProgress(a, b, order) {
  const done = new Map();
  for (const text of [a, b]) {
    if (typeof text !== "string" || text.length > 2000) continue;
    for (const group of text.split("_")) {
      const m = /^([a-z]{1,4})\\.([01]*)\\.([01]*)$/.exec(group);
      if (!m || !order.includes(m[1])) continue;
      const [tasks, quizzes] = done.get(m[1]) || ["", ""];
      done.set(m[1], [orBits(tasks, m[2]), orBits(quizzes, m[3])]);
    }
  }
  return order.filter((code) => done.has(code))
    .map((code) => [code, ...done.get(code)].join(".")).join("_");
}

function orBits(x, y) {
  let out = "";
  for (let i = 0; i < Math.max(x.length, y.length); i++) out += x[i] === "1" || y[i] === "1" ? "1" : "0";
  return out;
}
"""

_bridge = st.components.v2.component("attention_lessons_browser", js=_JS)


def union(a: progress.Progress, b: progress.Progress) -> progress.Progress:
    """Everything either progress has done."""
    return progress.Progress(a.visited | b.visited, a.tasks | b.tasks, a.quizzes | b.quizzes)


def take_stored_lang() -> None:
    """Note the language this browser keeps, as its bridge last reported it
    (before the run decides its language: see i18n.current_lang)."""
    result = session.get(session.BROWSER_BRIDGE)
    kept = getattr(result, "lang", None) if result is not None else None
    if kept in LANGS and not session.has(session.CHOSEN_LANG):
        session.put(session.STORED_LANG, kept)


def choose_lang(lang: str) -> None:
    """The learner chose ``lang``: this browser keeps it from the next run on."""
    session.put(session.CHOSEN_LANG, lang)
    session.put(session.STORED_LANG, lang)


def sync(lang: str, learner: progress.Progress) -> progress.Progress | None:
    """Mount the bridge (in the sidebar, hidden). Returns the merged progress
    when the browser's stored progress has just arrived and added something,
    else None."""
    merged = None
    result = session.get(session.BROWSER_BRIDGE)
    stored = getattr(result, "stored", None) if result is not None else None
    if stored is not None and not session.get(session.BROWSER_MERGED):
        session.put(session.BROWSER_MERGED, True)
        kept, _ = progress.decode(stored if isinstance(stored, str) else "")
        both = union(learner, kept)
        if both != learner:
            merged = both
            learner = both
    with st.sidebar:
        _bridge(
            key=session.BROWSER_BRIDGE,
            data={
                "lang": lang,
                "storage_key": STORAGE_KEY,
                "ready": bool(session.get(session.BROWSER_MERGED)),
                "save": progress.encode(learner),
                "order": [lesson.code for lesson in LESSONS],
                "upload_label": t("ux.upload_button"),
                "lang_key": LANG_STORAGE_KEY,
                "langs": list(LANGS),
                "save_lang": session.get(session.CHOSEN_LANG, ""),
                "known_lang": session.get(session.STORED_LANG, ""),
            },
            on_stored_change=lambda: None,
            on_lang_change=lambda: None,
            height=0,
        )
    return merged

"""Text lookup: every sentence on screen comes from locales/<lang>.toml."""

from __future__ import annotations

import functools
import re
import threading
import tomllib
from pathlib import Path
from typing import Any

import streamlit as st

from course_app import session, url
from lesson_core.rounding import fixed, half_up_decimal

LANGS = ("ja", "en")
DEFAULT_LANG = "ja"
LOCALES = Path(__file__).resolve().parent / "locales"


def flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"a": {"b": "x"}} -> {"a.b": "x"}; lists and strings are leaves."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


@functools.cache
def catalog(lang: str) -> dict[str, Any]:
    """Every entry of locales/<lang>.toml, flattened to dotted keys."""
    with open(LOCALES / f"{lang}.toml", "rb") as f:
        return flatten(tomllib.load(f))


# Streamlit runs every script run (and fragment rerun) in a fresh thread, so a
# thread-local remembers the language for one run only; reading the URL
# on each of the ~100 t() calls of a page would cost milliseconds per rerun.
_this_run = threading.local()


def resolve_lang(url: object, stored: object, locale: object) -> str:
    """The page's language: ?lang= from the URL, else the one this browser
    keeps (chosen earlier, see course_app.browser), else English for a browser
    whose own language is English (``st.context.locale`` "en", "en-GB"...),
    else Japanese. A value that is not one of LANGS counts as absent."""
    for lang in (url, stored):
        if lang in LANGS:
            return str(lang)
    if isinstance(locale, str) and locale.lower().startswith("en"):
        return "en"
    return DEFAULT_LANG


def current_lang() -> str:
    """The language of this run (resolve_lang: URL, browser, browser's locale)."""
    lang = getattr(_this_run, "lang", None)
    if lang is None:
        stored = session.get(session.STORED_LANG)
        lang = _this_run.lang = resolve_lang(url.get(url.LANG), stored, st.context.locale)
    return lang


def forget_lang() -> None:
    """Call when the language changes within a run (the language switch)."""
    _this_run.lang = None


def t(key: str, **values: Any) -> str:
    """The text for ``key`` in the current language, placeholders filled in.

    A missing key raises KeyError: the page tests render every page in both
    languages, so a missing key fails a test instead of reaching a learner.
    """
    text = catalog(current_lang())[key]
    return text.format(**values) if values else text


def t_list(key: str) -> list[str]:
    """A list-valued entry (quiz options, feedback) in the current language."""
    return list(catalog(current_lang())[key])


def gloss(token: str) -> str:
    """A token as shown: 'ねこ' in Japanese, 'ねこ (cat)' in English."""
    meaning = catalog(current_lang()).get(f"gloss.{token}", "")
    return f"{token} ({meaning})" if meaning else token


# Every ASCII punctuation character: CommonMark shows each of them literally
# after a backslash, so no markdown, HTML, entity (&amp;), KaTeX ($) or
# Streamlit directive (:red[...], :material/...:, :cat:) can form.
_MARKDOWN_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")
# Streamlit's markdown turns bare addresses into links after the escapes are
# read (GFM autolinks: http://..., www...., a@b.c) and replaces :name: with
# emoji or icons the same way. An invisible word joiner right after ":" and "@"
# and between "www" and "." breaks those patterns without changing what is seen.
WORD_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?<=[:@])|(?<=www)(?=\.)", re.IGNORECASE)


def md_escape(text: str) -> str:
    """Text a learner typed, made safe to place inside markdown, so that it is
    shown exactly as typed: every ASCII punctuation character is backslash-
    escaped and autolinks and :directives: are broken by an invisible word
    joiner. The one escaper for learner text on every page."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", _AUTOLINK.sub(WORD_JOINER, str(text)))


def pct(x: float, digits: int = 1) -> str:
    """0.6571 -> '65.7%', rounded half up like every shown number (0.1225 ->
    '12.3%', where Python's format would give '12.2%'), never '-0.0%'."""
    return f"{fixed(x, digits, scale=100)}%"


def pct_label(x: float, digits: int = 1) -> str:
    """A weight on a bar or in a cell: like ``pct``, but a weight above 0 that would
    print as zero reads "<0.1%" (or "<1%" with no decimals), never "0%"."""
    if float(x) > 0 and half_up_decimal(x, digits, scale=100) == 0:
        return f"<{fixed(10.0**-digits, digits)}%"
    return pct(x, digits)


def num(x: float, digits: int = 2) -> str:
    """A number with fixed decimals, rounded half up (四捨五入: −0.125 ->
    '−0.13', never '−0.00'), with a real minus sign."""
    return fixed(x, digits).replace("-", "−")


def vec(values, digits: int = 2) -> str:
    """[1.2345, -2] -> '[1.23, −2.00]'."""
    return "[" + ", ".join(num(v, digits) for v in values) + "]"


def plural_key(key: str, count: float, lang: str) -> str:
    """The catalog key of a sentence about ``count`` things: ``<key>_one`` when
    ``count`` is exactly 1 and the catalog has that entry, else ``<key>_other``.

    English needs "1 token" but "2 tokens"; Japanese has no plural, so its
    ``_one`` and ``_other`` entries say the same (both catalogs keep the same keys).
    """
    cat = catalog(lang)
    if count == 1 and f"{key}_one" in cat:
        return f"{key}_one"
    return f"{key}_other"


def t_count(key: str, count: float, **values: Any) -> str:
    """``t()`` for a sentence with a count in it: picks ``<key>_one`` or
    ``<key>_other`` by ``count`` (see ``plural_key``) and fills the placeholders:
    with entries ``x_one = "{n} token"`` and ``x_other = "{n} tokens"``,
    ``t_count(key, n, n=n)`` gives "1 token" for n = 1 and "2 tokens" for n = 2."""
    return t(plural_key(key, count, current_lang()), **values)

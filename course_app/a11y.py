"""Accessibility helpers: text a screen reader can say."""

from __future__ import annotations

import re

_ONLY_MATHS = re.compile(r"^\s*\$([^$]+)\$\s*$")
_SUBSCRIPT = dict(zip("0123456789aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True))
_COMMANDS = {r"\times": "×", r"\cdot": "·", r"\sqrt": "√", r"\le": "≤", r"\ge": "≥", r"\to": "→"}


def _subscript(match: re.Match) -> str:
    text = match.group(1) or match.group(2)
    if all(c in _SUBSCRIPT for c in text):
        return "".join(_SUBSCRIPT[c] for c in text)
    return "_" + text


def plain_maths(option: str) -> str:
    """An option that is nothing but a simple formula ('$n \\times d_k$') as
    plain text ('n × dₖ'), so that the radio button has a name a screen reader
    can read (KaTeX's rendering gives it none). Anything else is returned
    unchanged, as is a formula this cannot spell out."""
    match = _ONLY_MATHS.match(option)
    if not match:
        return option
    text = match.group(1)
    for command, symbol in _COMMANDS.items():
        text = re.sub(re.escape(command) + r"(?![A-Za-z])", symbol, text)
    text = re.sub(r"_\{([^{}]*)\}|_(\w)", _subscript, text)
    text = re.sub(r"\{([^{}]*)\}", r"\1", text)
    if "\\" in text or "^" in text or "_" in text:
        return option
    return re.sub(r"\s+", " ", text).strip()

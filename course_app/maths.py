"""LaTeX for small matrices and vectors, from real arrays."""

from __future__ import annotations

import numpy as np

from lesson_core.rounding import fixed


def _n(x: float) -> str:
    return f"{float(x):g}"


def bmatrix(a: np.ndarray) -> str:
    """A 1-D array as a row vector, a 2-D array as a matrix."""
    a = np.atleast_2d(a)
    rows = r" \\ ".join(" & ".join(_n(x) for x in row) for row in a)
    return rf"\begin{{bmatrix}} {rows} \end{{bmatrix}}"


def product(x: np.ndarray, w: np.ndarray, y: np.ndarray) -> str:
    """x W = y, each typeset from its array."""
    return f"{bmatrix(x)} {bmatrix(w)} = {bmatrix(y)}"


# --- arithmetic written out term by term (the attention lesson's "by hand") ---


def _f(x: float, digits: int) -> str:
    return fixed(x, digits)


def _t(label: str) -> str:
    r"""A token or word inside maths: \text{...} with KaTeX's special characters removed."""
    return r"\text{" + "".join(c for c in label if c not in "\\{}$&#^_%~") + "}"


def _aligned(lines: list[str]) -> str:
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"


# A phone's column (about 358 px) holds two terms such as "0.665 × 0.5" of a
# long sum, with the result: longer sums go on over more lines.
TERMS_PER_LINE = 2


def _wrapped(left: str, terms: list[str], result: str) -> list[str]:
    r"""``left = t1 + t2 + … result`` as aligned lines, TERMS_PER_LINE terms to
    a line, each further line starting with "+" under the first term."""
    chunks = [" + ".join(terms[i : i + TERMS_PER_LINE]) for i in range(0, len(terms), TERMS_PER_LINE)]
    lines = [rf"{left} &= {chunks[0]}", *(rf"&\quad + {chunk}" for chunk in chunks[1:])]
    lines[-1] += f" {result}"
    return lines


def named_product(x: np.ndarray, w: np.ndarray, y: np.ndarray, name: str) -> str:
    """name = x W = y, e.g. q = x W_Q."""
    return f"{name} = {product(x, w, y)}"


def weighted_sums(x: np.ndarray, w: np.ndarray, terms: np.ndarray) -> str:
    """y_j = x_1 W_1j + x_2 W_2j + ... = y_j, one line per output."""
    x, w = np.asarray(x), np.asarray(w)
    lines = []
    for j, row in enumerate(np.asarray(terms)):
        parts = " + ".join(rf"{_n(x[i])} \times {_n(w[i, j])}" for i in range(len(x)))
        lines.append(rf"y_{{{j + 1}}} &= {parts} = {_n(row.sum())}")
    return _aligned(lines)


def dot_products(labels: list[str], q: np.ndarray, keys: np.ndarray, scores: np.ndarray) -> str:
    """q · k_token = q_1 k_1 + q_2 k_2 + ... = score, one line per key."""
    lines = []
    for label, k, s in zip(labels, np.asarray(keys), scores, strict=True):
        parts = " + ".join(rf"{_n(a)} \times {_n(b)}" for a, b in zip(q, k, strict=True))
        lines.append(rf"q \cdot k_{{{_t(label)}}} &= {parts} = {_n(s)}")
    return _aligned(lines)


def _quotients(labels: list[str], tops: list[str], bottom: str, results: list[str]) -> str:
    """label: top ÷ bottom ≈ result, one aligned line per key (the numbers already written out)."""
    lines = [
        rf"{_t(label)}: \quad {top} \div {bottom} &\approx {result}"
        for label, top, result in zip(labels, tops, results, strict=True)
    ]
    return _aligned(lines)


def divisions(labels: list[str], scores: np.ndarray, divisor: float, scaled: np.ndarray) -> str:
    """score / √d_k ≈ scaled, one line per key."""
    return _quotients(labels, [_n(s) for s in scores], _f(divisor, 3), [_f(v, 2) for v in scaled])


def exponentials(labels: list[str], scaled: np.ndarray, exps: np.ndarray, total: float) -> str:
    """e^x ≈ value for every key, then their sum."""
    lines = [
        rf"{_t(label)}: \quad e^{{{_f(s, 2)}}} &\approx {_f(e, 2)}"
        for label, s, e in zip(labels, scaled, exps, strict=True)
    ]
    lines.append(rf"\textstyle\sum &= {' + '.join(_f(e, 2) for e in exps)} = {_f(total, 2)}")
    return _aligned(lines)


def shares(labels: list[str], exps: np.ndarray, total: float, weights: np.ndarray) -> str:
    """e^x / sum ≈ weight, one line per key."""
    return _quotients(labels, [_f(e, 2) for e in exps], _f(total, 2), [_f(w, 3) for w in weights])


def component_sums(axes: list[str], weights: np.ndarray, values: np.ndarray, output: np.ndarray) -> str:
    """output_axis = Σ weight_j · v_j[axis] for every component, each sum
    wrapped to fit a phone (``_wrapped``)."""
    values = np.asarray(values)
    lines = []
    for a, axis in enumerate(axes):
        parts = [rf"{_f(w, 3)} \times {_n(v[a])}" for w, v in zip(weights, values, strict=True)]
        lines += _wrapped(_t(axis), parts, rf"\approx {_f(output[a], 2)}")
    return _aligned(lines)

"""The numbers behind every lesson, in plain NumPy.

Nothing in this package imports Streamlit, Altair or pandas (the app's
furniture is ``course_app``, one floor up): each function takes arrays and
returns arrays, so the lessons, the tests and a notebook all see the same
numbers.

Axis names used in the ``Shapes:`` line of every docstring:

    n       tokens in a sequence (n_q queries, n_k keys when they differ)
    d_k     size of a query / key vector
    d_v     size of a value vector
    d_model size of a token vector entering a layer
    h       number of heads; d_head = d_model / h
    V       vocabulary size
    N       tokens of several sentences packed into one sequence (the capstone's batch)
    m       number of settings measured in a sweep (d_k values, spreads)
"""

from lesson_core.attention import (
    AttentionResult,
    additive_mask,
    causal_mask,
    equal_average,
    linear_map,
    residual,
    scaled_dot_product_attention,
    softmax,
)
from lesson_core.bigram import BigramModel, fit_bigram, prefix_next_counts
from lesson_core.multihead import MultiHeadResult, multi_head_attention
from lesson_core.positional import sinusoidal_encoding

__all__ = [
    "AttentionResult",
    "BigramModel",
    "MultiHeadResult",
    "additive_mask",
    "causal_mask",
    "equal_average",
    "fit_bigram",
    "linear_map",
    "multi_head_attention",
    "prefix_next_counts",
    "residual",
    "scaled_dot_product_attention",
    "sinusoidal_encoding",
    "softmax",
]

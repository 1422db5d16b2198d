"""The glossary's terms, in the order the glossary page lists them.

Data only: each id names catalog entries ``glossary.<id>.name``, ``.short``
(one sentence, shown in a lesson's look-up) and ``.long`` (the glossary entry),
and is the anchor of the term on the glossary page (``/glossary#<id>``).
"""

TERMS: tuple[str, ...] = (
    "token",
    "embedding",
    "matrix",
    "transpose",
    "linear_map",
    "dot_product",
    "softmax",
    "weighted_average",
    "query_key_value",
    "attention",
    "scaling",
    "temperature",
    "one_hot",
    "entropy",
    "jacobian",
    "causal_mask",
    "positional_encoding",
    "head",
    "concatenation",
    "residual",
    "layernorm",
    "corpus",
    "bigram",
    "total_variation",
    "parameter",
    "training",
    "loss",
    "gradient",
    "kv_cache",
    "rope",
    "gqa",
    "long_context",
)

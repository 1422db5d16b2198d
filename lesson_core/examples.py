"""The course's running examples (A–F), as data only.

Every vector here is hand-made for teaching: small, readable numbers chosen
so that each lesson's point is visible. None of them comes from a trained
model. Axis ids are translated in the locale catalogs (``axis.<id>``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _frozen(rows: list[list[float]]) -> np.ndarray:
    a = np.array(rows, dtype=float)
    a.flags.writeable = False
    return a


@dataclass(frozen=True)
class TokenExample:
    """tokens [n]; vectors [n, d] (embeddings, or keys = values);
    queries [n, d] when the example has hand-made queries; axes [d] ids."""

    tokens: tuple[str, ...]
    vectors: np.ndarray
    queries: np.ndarray | None = None
    axes: tuple[str, ...] = ()

    def index(self, token: str) -> int:
        return self.tokens.index(token)


# A. Chapter sentence, 2-D embeddings.
CHAPTER = TokenExample(
    tokens=("ねこ", "は", "ひるね", "が", "すき"),
    vectors=_frozen([[0.90, 0.15], [0.10, 0.05], [0.95, 0.85], [0.12, 0.10], [0.88, 0.70]]),
)

# B. Decoder sentence, 3-D embeddings.
DECODER = TokenExample(
    tokens=("わたし", "は", "きょう", "本", "を", "読む"),
    vectors=_frozen(
        [
            [0.80, 0.10, 0.20],
            [0.10, 0.05, 0.05],
            [0.55, 0.85, 0.20],
            [0.92, 0.70, 0.15],
            [0.12, 0.12, 0.02],
            [0.75, 0.88, 0.92],
        ]
    ),
)

# C. Pronoun sentence, 4 feature axes. Keys = values. The first seven keys and
# それ's query are from the course plan; は / 新鮮 / だった and the other queries
# are hand-made (small, readable numbers) so that the whole masked 10 x 10
# weight map reads like a story, each token looking for something sensible:
#   猫 (subject) looks for food and an action (with the mask it sees only itself);
#   が looks back for an animal; 魚 for an animal and a little food;
#   を for an animal and food; 食べた for who ate what (and away from particles);
#   。 for the action; それ for food (see the lesson's caveat);
#   は for an animal and food; 新鮮 ("fresh") for food: it gathers 魚;
#   だった for a bit of everything but function words.
# 新鮮's key is a food feature (a word about food); は is a function word like
# が and を; だった is mostly a function word with a little action.
PRONOUN = TokenExample(
    tokens=("猫", "が", "魚", "を", "食べた", "。", "それ", "は", "新鮮", "だった"),
    vectors=_frozen(
        [
            [3.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 2.0],
            [1.0, 3.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 2.0],
            [0.0, 0.5, 3.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
            [0.3, 0.3, 0.0, 1.0],
            [0.0, 0.0, 0.0, 2.0],
            [0.0, 1.5, 0.0, 0.0],
            [0.0, 0.0, 0.5, 1.5],
        ]
    ),
    queries=_frozen(
        [
            [0.0, 1.0, 1.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 0.5, 0.0, 0.0],
            [1.0, 1.0, 0.0, 0.0],
            [1.5, 1.5, 0.0, -0.5],
            [0.0, 0.0, 1.0, 0.0],
            [1.0, 1.5, 0.0, -1.0],
            [1.0, 1.0, 0.0, -0.5],
            [0.0, 2.0, 0.0, 0.0],
            [0.5, 1.5, 0.5, 0.0],
        ]
    ),
    axes=("animal", "food", "action", "function"),
)

# それ ("it"): the query whose weights the attention lessons follow.
PRONOUN_QUERY = PRONOUN.index("それ")

# D. Toy 2-D example: keys = values, one query (それ), d_k = 2.
TOY = TokenExample(
    tokens=("猫", "魚", "それ"),
    vectors=_frozen([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]]),
    queries=_frozen([[0.0, 2.0]]),
    axes=("animal", "food"),
)

# D'. The same keys with values on other axes ([size, lives in water]): a key is how a
# token is found, a value what it hands over.
TOY_VALUES = _frozen([[0.6, 0.0], [0.2, 1.0], [0.0, 0.0]])
TOY_VALUE_AXES = ("size", "water")

# The worked linear-map example of the attention lesson: [2, 1] W = [2, 4].
LINEAR_MAP_INPUT = _frozen([[2.0, 1.0]])[0]
LINEAR_MAP_WEIGHTS = _frozen([[0.5, 1.0], [1.0, 2.0]])

# Weights we would *want* for すき in example A, before any mechanism: an
# illustration of the goal, not a computation. ねこ says whose story it is,
# ひるね is what is liked; the particles add little.
WANTED_SUKI = _frozen([[0.20, 0.03, 0.60, 0.05, 0.12]])[0]

# Two hand-made 2 x 2 matrices for example A, to show that W_Q and W_K turn the
# same token into two different vectors (its query and its key).
W_QUERY = _frozen([[0.5, 1.0], [0.0, 0.5]])
W_KEY = _frozen([[1.0, 0.0], [0.5, 1.0]])

# E. Word-order pair: the same tokens, different meaning.
WORD_ORDER = (
    ("ねこ", "が", "いぬ", "を", "追う"),
    ("いぬ", "が", "ねこ", "を", "追う"),
)

# F. Corpus for the bigram lesson and the capstone. ねこ and いぬ like
# different things, so "ねこ は" and "いぬ は" are followed by different
# tokens, yet the token right before the object is は in both.
CORPUS = tuple(
    tuple(s.split())
    for s in (
        "ねこ は ひるね が すき",
        "ねこ は さかな が すき",
        "ねこ は こたつ が すき",
        "ねこ は ひなたぼっこ が すき",
        "いぬ は さんぽ が すき",
        "いぬ は ボール が すき",
        "いぬ は ほね が すき",
        "いぬ は はしる の が すき",
        "ねこ が ひるね を する",
        "いぬ が さんぽ を する",
        "わたし は ねこ が すき",
        "わたし は いぬ が すき",
        "ねこ も いぬ も かわいい",
        "きょう は いぬ と さんぽ",
    )
)

# The two contexts the bigram lesson and the capstone compare: the bigram sees
# only は in both, the mini GPT also sees the animal.
CAT_WA, DOG_WA = ("ねこ", "は"), ("いぬ", "は")

# --- positional encoding lesson (§5) -------------------------------------------

# E's tokens as hand-made 4-D vectors (d_model = 4), used with Q = K = V = X to
# show that attention without position vectors cannot tell the two orders apart.
WORD_ORDER_EMBEDDINGS: dict[str, np.ndarray] = {
    "ねこ": _frozen([[0.9, 0.2, 0.1, 0.0]])[0],
    "が": _frozen([[0.0, 0.1, 0.0, 0.8]])[0],
    "いぬ": _frozen([[0.8, 0.0, 0.3, 0.1]])[0],
    "を": _frozen([[0.1, 0.0, 0.0, 0.9]])[0],
    "追う": _frozen([[0.2, 0.1, 0.9, 0.1]])[0],
}

# One token vector placed at positions 0, 1 and 2.
SAME_TOKEN_VECTOR = _frozen([[0.8, 0.2, -0.1, 0.5]])[0]
SAME_TOKEN_POSITIONS = (0, 1, 2)

# --- multi-head lesson (§6) ----------------------------------------------------

# GPT-2 small: width 768, 12 heads of 64; a 10-token sentence.
GPT2_SMALL_D_MODEL = 768
GPT2_SMALL_HEADS = 12

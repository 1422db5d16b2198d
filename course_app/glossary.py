"""The glossary's terms, in the order the glossary page lists them, and the one
spelling each concept has in each language.

Data only: each id names catalog entries ``glossary.<id>.name``, ``.short``
(one sentence, shown in a lesson's look-up) and ``.long`` (the glossary entry),
and is the anchor of the term on the glossary page (``/glossary#<id>``).

``SPELLINGS`` makes the glossary the single source of the course's words: for
each concept, the spelling every catalog text uses in Japanese and in English,
and the variants no text may use instead (``tests/catalogs/test_terms.py`` searches
every catalog value for them).
"""

from __future__ import annotations

from dataclasses import dataclass

TERM_PARAM = "term"  # a link into one entry: /glossary?term=dot_product#dot-product opens its explanation

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
    "self_attention",
    "scaling",
    "temperature",
    "top_k",
    "top_p",
    "greedy_decoding",
    "one_hot",
    "entropy",
    "jacobian",
    "causal_mask",
    "decoder_only",
    "positional_encoding",
    "head",
    "concatenation",
    "w_o",
    "previous_token_head",
    "induction_head",
    "residual",
    "feed_forward",
    "gelu",
    "swiglu",
    "layernorm",
    "rmsnorm",
    "corpus",
    "bigram",
    "prefix",
    "total_variation",
    "parameter",
    "training",
    "loss",
    "cross_entropy",
    "gradient",
    "learning_rate",
    "adam",
    "kv_cache",
    "rope",
    "gqa",
    "long_context",
    "sliding_window",
    "online_softmax",
)


@dataclass(frozen=True)
class Spelling:
    """One concept's words. ``term`` is the glossary entry that defines it;
    ``ja`` / ``en`` the canonical spelling (a glossary name starts with it);
    ``not_ja`` / ``not_en`` the variants that must not appear, matched
    case-sensitively as plain substrings of a catalog value.

    In Japanese text the English original may follow the canonical spelling in
    full-width brackets, as in バイグラム（bigram）: the bracket is not a variant.
    ``gloss_ja`` is a bracketed explanation that must follow the Japanese
    spelling at its first use on a page (the first value of a top-level catalog
    table that contains it), e.g. プレフィックス（文の書き出し）."""

    term: str
    ja: str
    en: str
    not_ja: tuple[str, ...] = ()
    not_en: tuple[str, ...] = ()
    gloss_ja: str = ""


SPELLINGS: tuple[Spelling, ...] = (
    Spelling("token", "トークン", "token", not_ja=("token", "トークナイズ")),
    Spelling("embedding", "埋め込み", "embedding", not_ja=("エンベディング", "埋込み", "embedding")),
    Spelling("matrix", "行列", "matrix"),
    Spelling("transpose", "転置", "transpose"),
    Spelling("linear_map", "線形変換", "linear map", not_ja=("線型", "線形写像", "一次変換")),
    Spelling(
        "dot_product",
        "内積",
        "dot product",
        not_ja=("ドット積", "点積", "スカラー積"),
        not_en=("inner product", "scalar product"),
    ),
    Spelling(
        "softmax", "softmax", "softmax", not_ja=("ソフトマックス", "Softmax"), not_en=("soft-max", "soft max")
    ),
    Spelling(
        "weighted_average",
        "加重平均",
        "weighted average",
        not_ja=("重み付き平均", "重みつき平均", "重み付け平均"),
        not_en=("weighted mean",),
    ),
    Spelling(
        "query_key_value",
        "クエリ・キー・バリュー",
        "query, key, value",
        not_ja=(
            "クエリー",
            "ヴァリュー",
            "バリュ―",
            "クエリ、キー、バリュー",
            "クエリ/キー/バリュー",
            "Query・Key・Value",
            "query・key・value",
        ),
        not_en=("query/key/value", "query-key-value"),
    ),
    Spelling("attention", "アテンション", "attention", not_ja=("注意機構", "アテンション機構", "attention")),
    Spelling(
        "self_attention",
        "セルフアテンション",
        "self-attention",
        not_ja=("セルフ・アテンション", "自己注意", "self-attention"),
        not_en=("self attention", "selfattention", "Self attention"),
    ),
    Spelling("scaling", "スケーリング", "scaling"),
    Spelling("temperature", "温度", "temperature"),
    Spelling("top_k", "top-k", "top-k", not_ja=("トップk", "top-K", "Top-K"), not_en=("top-K", "Top-K")),
    Spelling("top_p", "top-p", "top-p", not_ja=("トップp", "top-P", "Top-P"), not_en=("top-P", "Top-P")),
    Spelling(
        "greedy_decoding", "貪欲法", "greedy decoding", not_ja=("グリーディ",), not_en=("greedy search",)
    ),
    Spelling(
        "one_hot",
        "ワンホット",
        "one-hot",
        not_ja=("ワン・ホット", "one-hot", "one hot", "One-hot"),
        not_en=("one hot", "onehot", "One hot"),
    ),
    Spelling("entropy", "エントロピー", "entropy"),
    Spelling("jacobian", "ヤコビ行列", "Jacobian", not_ja=("ヤコビアン",), not_en=("jacobian",)),
    Spelling(
        "causal_mask",
        "因果マスク",
        "causal mask",
        not_ja=("因果的マスク", "コーザルマスク", "コーザル・マスク", "causal mask"),
    ),
    Spelling(
        "decoder_only",
        "デコーダのみのモデル",
        "decoder-only model",
        not_ja=("デコーダー", "デコーダオンリー", "デコーダ・オンリー", "decoder-only"),
        not_en=("decoder only model", "decoder-only-model"),
    ),
    Spelling(
        "positional_encoding",
        "位置エンコーディング",
        "positional encoding",
        not_ja=("位置符号化", "ポジショナルエンコーディング", "位置のエンコーディング"),
        not_en=("position encoding", "positional embedding"),
    ),
    Spelling("head", "ヘッド", "head"),
    Spelling(
        "head",
        "マルチヘッド・アテンション",
        "multi-head attention",
        not_ja=(
            "マルチヘッドアテンション",
            "マルチヘッド アテンション",
            "マルチ・ヘッド",
            "multi-head",
            "Multi-head",
            "multihead",
        ),
        not_en=("multihead", "multi head", "Multihead", "Multi head", "multi-headed"),
    ),
    Spelling("concatenation", "連結", "concatenation"),
    Spelling(
        "residual",
        "残差接続",
        "residual connection",
        not_ja=("残差結合", "スキップ接続"),
        not_en=("skip connection",),
    ),
    Spelling(
        "layernorm",
        "LayerNorm",
        "LayerNorm",
        not_ja=("レイヤー正規化", "レイヤーノルム", "Layer Norm", "layer norm", "Layernorm"),
        not_en=("Layer Norm", "layer norm", "Layernorm", "layer normalisation"),
    ),
    Spelling("corpus", "コーパス", "corpus"),
    Spelling(
        "bigram",
        "バイグラム",
        "bigram",
        not_ja=("bigram", "Bigram", "2-gram", "2グラム", "２グラム", "バイ・グラム"),
        not_en=("bi-gram", "Bi-gram", "2-gram"),
    ),
    Spelling(
        "prefix",
        "プレフィックス",
        "prefix",
        not_ja=("出だし", "接頭辞", "接頭部", "prefix"),
        gloss_ja="（文の書き出し）",
    ),
    Spelling("total_variation", "全変動距離", "total variation distance"),
    Spelling("parameter", "パラメータ", "parameter", not_ja=("パラメーター",)),
    Spelling("training", "学習", "training", not_ja=("訓練", "トレーニング")),
    Spelling("loss", "損失", "loss"),
    Spelling("gradient", "勾配", "gradient", not_ja=("グラディエント", "グラジエント")),
    Spelling("kv_cache", "KV キャッシュ", "KV cache", not_ja=("KVキャッシュ", "kv キャッシュ")),
    Spelling("rope", "RoPE", "RoPE"),
    Spelling("gqa", "GQA", "GQA"),
    Spelling("long_context", "文脈長", "context length"),
    Spelling("learning_rate", "学習率", "learning rate"),
    Spelling("adam", "Adam", "Adam"),
    Spelling("cross_entropy", "交差エントロピー", "cross-entropy", not_ja=("クロスエントロピー",)),
    Spelling("feed_forward", "フィードフォワード層", "feed-forward layer", not_en=("feedforward",)),
    Spelling("gelu", "GELU", "GELU"),
    Spelling("swiglu", "SwiGLU", "SwiGLU"),
    Spelling("rmsnorm", "RMSNorm", "RMSNorm"),
    Spelling("w_o", "出力の射影", "output projection"),
    Spelling("previous_token_head", "直前トークンヘッド", "previous-token head"),
    Spelling("induction_head", "インダクションヘッド", "induction head"),
    Spelling(
        "sliding_window", "スライディングウィンドウ", "sliding window", not_ja=("スライディング・ウィンドウ",)
    ),
    Spelling("online_softmax", "オンライン softmax", "online softmax"),
)

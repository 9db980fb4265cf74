"""Statistics of a paired comparison: the paired tests on per-query differences (``paired``) and
the multiple-comparison corrections (``corrections``); their argument checks are in ``validate``.
numpy only at import; scipy is imported inside the functions that use it."""

from metrics.stats.corrections import (
    CORRECTIONS,
    adjust,
    benjamini_hochberg,
    check_correction,
    check_pvalues,
    holm,
)
from metrics.stats.paired import (
    effect_size,
    paired_bootstrap,
    paired_differences,
    sign_flip_pvalues,
    t_pvalue,
    t_pvalues,
    wilcoxon_pvalue,
    wilcoxon_pvalues,
)

__all__ = [
    "CORRECTIONS",
    "adjust",
    "benjamini_hochberg",
    "check_correction",
    "check_pvalues",
    "effect_size",
    "holm",
    "paired_bootstrap",
    "paired_differences",
    "sign_flip_pvalues",
    "t_pvalue",
    "t_pvalues",
    "wilcoxon_pvalue",
    "wilcoxon_pvalues",
]

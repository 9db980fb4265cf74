"""Which queries to label by hand: a seeded simple random sample without replacement, or
one stratified by a facet (proportional allocation by largest remainders, then a random
sample within each stratum), so that prediction-powered intervals (metrics.context.judge)
rest on what they assume, a random sample of the queries. The rule's words are
metrics.vocabulary.judge.SAMPLE_RULE."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from metrics.stats.validate import check_count, check_generator, check_integer
from metrics.vocabulary.judge import SAMPLE_TOO_LARGE

__all__ = ["allocation", "sample_queries"]


def allocation(sizes: Sequence[int], n: int) -> list[int]:
    """Each stratum's share of n, proportional to its size: the floors, then one more to the
    largest remainders (ties to the stratum listed first); never more than a stratum holds."""
    n = check_integer("n", n)
    sizes = np.asarray(sizes, dtype=np.int64)
    total = int(sizes.sum())
    if n > total:
        raise ValueError(SAMPLE_TOO_LARGE.format(n=n, queries=f"{total:,}"))
    exact = sizes * n / total
    shares = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - shares), kind="stable")
    for i in order[: n - int(shares.sum())]:
        shares[i] += 1
    return shares.tolist()


def sample_queries(query_ids: Sequence[str], n: int, *, rng: np.random.Generator,
                   strata: Sequence[str] | None = None) -> list[str]:
    """n of the queries, in their given order: a simple random sample, or with `strata`
    (each query's stratum, in the same order) a proportional stratified one."""
    n = check_count("n", n)
    rng = check_generator(rng)
    ids = [str(q) for q in query_ids]
    if len(set(ids)) != len(ids):
        raise ValueError("the queries to sample from must be distinct")
    if n > len(ids):
        raise ValueError(SAMPLE_TOO_LARGE.format(n=n, queries=f"{len(ids):,}"))
    if strata is None:
        chosen = rng.choice(len(ids), size=n, replace=False)
    else:
        labels = list(strata)
        if len(labels) != len(ids):
            raise ValueError(f"strata must name one stratum per query, got {len(labels)} for "
                             f"{len(ids)} queries")
        names = list(dict.fromkeys(labels))
        members = [np.flatnonzero(np.array([s == name for s in labels])) for name in names]
        shares = allocation([len(m) for m in members], n)
        chosen = np.concatenate([rng.choice(m, size=k, replace=False)
                                 for m, k in zip(members, shares, strict=True)])
    return [ids[i] for i in np.sort(chosen)]

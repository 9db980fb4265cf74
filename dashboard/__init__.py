"""The Streamlit dashboard over the metrics package.

One BLAS thread per matrix product in this process: the dashboard computes on several
threads at once (the page's script, the decisions started ahead, the fragility check,
Streamlit's server loop), usually beside the browser that shows it, and OpenBLAS's own
threads spin while they wait for a core. With its two threads a comparison's sign flips
took four times as long on the page as alone; with one, a new K on the Overview at 4 runs x
2,000 queries waited 0.52-0.75 s instead of 0.74-0.85 s (`benchmarks/browser.py`, and the
script's thread spent 35% less time). The command line keeps OpenBLAS's default: one thing
at a time, where a large product gains from both cores.
"""

import numpy  # noqa: F401  (loads OpenBLAS: threadpoolctl limits the libraries loaded)
from threadpoolctl import threadpool_limits

threadpool_limits(limits=1, user_api="blas")

"""The bundled sample of seed 000: ten queries, three runs, graded labels (data/sample/)."""

from __future__ import annotations

from pathlib import Path

from metrics.core.evaluate import Evaluation
from metrics.core.files import RunSource, evaluate_files
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import SAMPLE_K

# the install is editable (pip install -e .), so the repository's data/ sits beside the package
SAMPLE_DIR = Path(__file__).resolve().parents[2] / "data" / "sample"
SAMPLE_RUNS = ("baseline", "reranked", "bm25")


def sample_qrels() -> Path:
    return SAMPLE_DIR / "qrels.txt"


def sample_runs() -> list[RunSource]:
    return [RunSource(SAMPLE_DIR / f"{name}.run") for name in SAMPLE_RUNS]


def load_sample(
    k: int = SAMPLE_K,
    conventions: Conventions | None = None,
    *,
    sweep: tuple[int, int] | None = None,
) -> Evaluation:
    if not SAMPLE_DIR.is_dir():
        raise ValueError(
            f"{SAMPLE_DIR}: the bundled sample is missing; install the repository "
            "editable (pip install -e .) so data/ stays beside the package"
        )
    return evaluate_files(sample_qrels(), sample_runs(), k, conventions, sweep=sweep)

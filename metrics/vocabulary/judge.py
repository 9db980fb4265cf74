"""The words of labels from a model judge: what the two label sets cover, how far the judge
agrees with the humans (kappa, its false relevant and false non-relevant rates, its bias on
each figure), the three intervals beside every figure (human only, judge only,
prediction-powered), the paired comparison, the check that the human-labelled queries look
like a random sample, and the sampling of queries to label. Pure words and thresholds;
metrics.context.judge computes the figures."""

from __future__ import annotations

from metrics.vocabulary.format import count, undefined

JUDGE_FLAG = "--judge-qrels"
JUDGE_HELP = ("the model judge's labels, any qrels format (.gz and Parquet too), beside "
              "--qrels, the human labels, which may cover only a sample of the queries")
LAMBDA_FLAG = "--ppi-lambda"
LAMBDA_HELP = ("the weight on the judge's labels in the prediction-powered means: 'tuned' "
               "(PPI++'s variance-minimising weight, the default) or a number in [0, 1] "
               "(1: plain PPI; 0: the human labels alone)")
TUNED = "tuned"

# every query of the population counts: the unlabelled part cannot be told apart by its human
# labels, so a query without a relevant id scores 0 under either label set
EVERY_QUERY_COUNTS = (
    "Every query counts in these figures, and a query without a relevant id scores 0 under "
    "the label set that finds none: which queries a human would find empty is unknown where "
    "no human labelled, so none can be excluded (--empty-queries zero)."
)

TERMS = {
    "coverage": "How many queries and (query, document) pairs each label set grades, and how "
    "many both grade; the judge's queries are the population, the human-labelled ones the "
    "sample.",
    "confusion": "Pairs both label sets grade, counted by human grade (rows) and judge grade "
    "(columns).",
    "kappa": "Cohen's kappa over the pairs both grade: 1 for full agreement, 0 for what chance "
    "gives from the two sets' grade shares; its interval is the normal one from the "
    "large-sample standard error (Fleiss, Cohen and Everitt 1969).",
    "weighted_kappa": "Weighted kappa with linear weights over the grades: a grade one step "
    "off earns partial credit (shown when more than two grades occur).",
    "false_relevant": "False relevant rate: of the pairs both label sets grade that the humans "
    "judge not relevant, the share the judge calls relevant (Wilson interval). An id the judge "
    "calls relevant that no human graded is not among them: the count beside the rates says "
    "how many there are, and the bias column what they do to each figure.",
    "false_nonrelevant": "False non-relevant rate: of the pairs both label sets grade that the "
    "humans judge relevant, the share the judge calls not relevant (Wilson interval).",
    "bias": "Bias: the figure's mean under the judge's labels minus under the human labels, "
    "over the queries both label, with its paired interval (normal, on the per-query "
    "differences); positive when the judge flatters the run.",
    "human": "Human only: the mean over the human-labelled queries and its normal interval; "
    "valid, but wide when few are labelled.",
    "judge": "Judge only: the mean over every query under the judge's labels and its normal "
    "interval; narrow, but it carries the judge's bias, which no interval from judge labels "
    "alone can see.",
    "ppi": "Prediction-powered (PPI++): lambda times the judge's mean over the queries without "
    "human labels, plus the mean of human minus lambda times judge over the human-labelled "
    "ones; its normal interval from the CLT stays valid whatever the judge's errors, and is "
    "narrower than the human-only one as far as the judge tracks the humans.",
    "lambda": "lambda: the weight on the judge's labels; PPI++ tunes it to Cov(human, judge) / "
    "((1 + n/N) Var(judge)), clipped to [0, 1] (n human-labelled queries, N others); 1 is "
    "plain PPI, 0 the human-only mean.",
    "paired": "Each run against the first with the same three constructions on the per-query "
    "differences (run minus baseline): a prediction-powered interval that excludes 0 says "
    "the run differs, read from few human labels and many judge labels.",
    "width": "Width ratio: the prediction-powered interval's width over the human-only "
    "one's, what the judge's labels bought (1: nothing; lower is better).",
    "agreement": "Do the two label sets order the runs alike, over the queries both label: "
    "Kendall's tau and tau_AP, and the pairs of runs that swap.",
    "sample_check": "Are the human-labelled queries like the others? Each run's figure under "
    "the judge's labels on the human-labelled queries against the rest (Mann-Whitney U, "
    "Bonferroni over the runs): a sample chosen by how the runs did fails this, and its "
    "prediction-powered intervals would not be valid.",
}

# under the chart of the three intervals
CHART_SUBTITLE = ("Human only: valid but wide. Judge only: narrow, but off by the judge's bias. "
                  "Prediction-powered: the judge's labels corrected by the human ones.")

# the sample check flags a run whose Bonferroni-corrected p-value falls below this
SAMPLE_CHECK_ALPHA = 0.01
SAMPLE_LOOKS_RANDOM = ("The human-labelled queries look like a random sample: no run scores "
                       "them differently from the rest under the judge's labels "
                       "(Bonferroni-corrected p >= {alpha}).")
SAMPLE_NOT_RANDOM = ("The human-labelled queries do not look like a random sample of "
                     "the queries: under the judge's labels, {runs} score them differently "
                     "from the rest ({figure}: {details}). Prediction-powered intervals assume "
                     "a random sample; draw one with `python -m metrics sample-for-labelling`.")
PPI_IS_HUMAN_ONLY = "the prediction-powered figures are the human-only ones"
NO_UNLABELLED = f"Every judged query is human-labelled: {PPI_IS_HUMAN_ONLY}."
# why a figure has no value (shown as metrics.vocabulary.format.undefined(reason))
NO_JUDGE_ONLY = "no judge-only query"  # lambda, when every query is human-labelled
NO_WIDTH = "the human-only interval has no width"  # the width ratio
HUMAN_NOT_JUDGED = ("{queries} human-labelled but not judged, left out of the bias and the "
                    "prediction-powered figures: {ids}")
TOO_FEW_LABELLED = ("prediction-powered figures need at least 2 queries labelled by both the "
                    "humans ({human}) and the judge ({judge}); the two share {shared}")
PPI_ONLY_HERE = ("--labels ppi is read by the judge command (and by compare's headline); this "
                 "command scores under one label set: give --labels human or --labels judge")
JUDGE_NEEDED = "--labels {labels} needs --judge-qrels FILE, the judge's labels"


def coverage_sentence(human_queries: int, judge_queries: int, both_queries: int,
                      human_pairs: int, judge_pairs: int, both_pairs: int) -> str:
    """'Human labels: 200 queries, 2,000 pairs; judge: 5,000 queries, 50,000 pairs; both:
    200 queries, 1,990 pairs.'"""
    return (f"Human labels: {count(human_queries, 'query')}, {count(human_pairs, 'pair')}; "
            f"judge: {count(judge_queries, 'query')}, {count(judge_pairs, 'pair')}; both: "
            f"{count(both_queries, 'query')}, {count(both_pairs, 'pair')}.")


# the judge's two error rates read over the pairs both label sets grade, split by the human
# label: what each is a share of, and why it has no value when there is no such pair
HUMAN_JUDGES = {"false_relevant": "not relevant", "false_nonrelevant": "relevant"}


def rate_basis(part: int, whole: int, human_judge: str) -> str:
    """'110 of the 534 pairs both label sets grade that the humans judge not relevant'."""
    pairs = "the 1 pair" if whole == 1 else f"the {whole:,} pairs"
    return f"{part:,} of {pairs} both label sets grade that the humans judge {human_judge}"


def rate_undefined(human_judge: str) -> str:
    """Why a rate has no value: its denominator holds no pair."""
    return f"no pair both label sets grade is one the humans judge {human_judge}"


UNGRADED_RELEVANT = ("On the human-labelled queries the judge also calls {ids} relevant that no "
                     "human graded: no rate above counts them; the bias column shows what they "
                     "do to each figure.")
LAMBDA_DECIMALS = 2  # the weight on the judge and the width ratio are written to 2 decimals


def ratio(value: float | None, why: str = "") -> str:
    """A weight or a ratio of widths: '0.42'; with `why`, the reason it has no value,
    'undefined (why)'."""
    return undefined(why) if why else f"{value:.{LAMBDA_DECIMALS}f}"


def width_sentence(label: str, run: str, ppi: float, human: float) -> str:
    """What the judge bought: the prediction-powered interval's width against human-only."""
    if human <= 0:
        return f"{label}, {run}: {NO_WIDTH} to compare."
    return (f"{label}, {run}: the prediction-powered interval is {ppi / human:.0%} of the "
            f"human-only one's width ({ppi:.3f} against {human:.3f}).")


# --------------------------------------------------------------------------- sampling

SAMPLE_COMMAND_HELP = ("draw the queries to label by hand: a seeded random sample (stratified "
                       "by a facet of --queries with --by), written as a labelling template "
                       "of the top K of every run")
SAMPLE_RULE = ("A simple random sample of the queries without replacement, seeded; with a "
               "facet, each of its values gets a share of the n proportional to its queries "
               "(largest remainders, ties to the value named first) and a random sample "
               "within it.")
SAMPLE_TOO_LARGE = "--n {n} asks for more queries than the {queries} there are"


def sample_sentence(n: int, queries: int, seed: int, by: str | None) -> str:
    strata = f", stratified by {by}" if by else ""
    return (f"Drew {count(n, 'query')} of {count(queries, 'query')} to label (seed {seed}"
            f"{strata}).")


# --------------------------------------------------------------------------- compare --labels ppi

PPI_METHOD = ("prediction-powered, {level}, lambda {lam}, {labelled} human-labelled and {others} "
              "judge-only queries")
# no query is judge-only: there is no weight to give, and the interval is the human-only one
HUMAN_ONLY_METHOD = ("human labels only, {level}, {labelled} human-labelled queries: every "
                     f"judged query is human-labelled, so {PPI_IS_HUMAN_ONLY}")
PPI_EVIDENCE = "({method}){correction}"
PPI_REFUSED = ("--labels ppi compares with prediction-powered intervals only: {flags} read the "
               "paired tests of one label set (give --labels human or judge for them)")


def with_interval(words: str, level: str, low: str, high: str) -> str:
    """A tooltip's words followed by the figure's interval: '... 95% interval [0.4, 0.6].'"""
    return f"{words} {level} interval [{low}, {high}]."

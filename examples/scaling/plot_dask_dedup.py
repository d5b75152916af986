"""
=================================================
Deduplicating a Parquet table on a Dask cluster
=================================================

:class:`~sklearn_ed.dask.DaskStringDeduplicator` finds the groups of
:class:`~sklearn_ed.StringDeduplicator` on a Dask cluster: each partition of
the table is read and processed where it lives, the strings are cut into
blocks of neighbouring lengths, and each pair of blocks is joined exactly in
a task. The groups are written beside the strings to Parquet by the workers;
new records are then put in them without refitting. This example runs it on
a two-worker ``LocalCluster`` and checks the groups against one process.
"""

# %%
# A table of person records, as Parquet partitions
# ------------------------------------------------
# Generated records (Faker's lists) with 9 % planted duplicates: typing
# errors, swapped names, a dropped city. Tables this size fit one process
# well; the cluster pays off from about a million records (the scaling page
# has the measurements).
import tempfile
import time
from pathlib import Path

import dask.dataframe as dd
import numpy as np
import pandas as pd
from distributed import Client, LocalCluster

from sklearn_ed import StringDeduplicator
from sklearn_ed.dask import DaskStringDeduplicator
from sklearn_ed.datasets import make_person_records

people = make_person_records(12_000, random_state=0)
folder = Path(tempfile.mkdtemp())
table = pd.DataFrame({"record": people.data, "entity": people.entity})
dd.from_pandas(table, npartitions=4).to_parquet(folder / "people")
records = dd.read_parquet(folder / "people")["record"]
print(f"{len(table):,} records in {records.npartitions} partitions, e.g. {people.data[0]!r}")

# %%
# Fit on the cluster
# ------------------
# The setting the dedup page recommends: similarity 0.85 between a record
# and its group's representative, on lower-cased, token-sorted strings.
# ``path`` must be a new folder (nothing in it is ever overwritten).
cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
client = Client(cluster)
options = dict(min_similarity=0.85, metric="normalized_indel", processor="default_sort_tokens")
start = time.perf_counter()
dedup = DaskStringDeduplicator(path=folder / "groups", client=client, **options).fit(records)
print(
    f"{dedup.n_samples_fit_:,} records in {dedup.n_groups_:,} groups, "
    f"{time.perf_counter() - start:.1f} s on {len(client.nthreads())} workers"
)

# %%
# The groups, written beside the records
# --------------------------------------
# ``groups_`` reads the workers' Parquet files lazily; a group is named by
# its smallest row, and ``representative`` marks the record the others were
# compared with. The largest groups:
groups = dedup.groups_.compute()
sizes = groups.groupby("group").size().nlargest(3)
for group in sizes.index:
    print(f"group {group}:")
    for string in groups.loc[groups["group"] == group, "string"]:
        print(f"    {string}")

# %%
# The same groups as one process
# ------------------------------
# :class:`~sklearn_ed.StringDeduplicator` numbers its groups 0, 1, ... in
# order of their first record; named by their smallest row instead, they
# are the cluster's groups.
local = StringDeduplicator(**options).fit(people.data)
smallest_row = pd.Series(np.arange(len(table))).groupby(local.labels_).transform("min")
print("same groups as one process:", np.array_equal(groups["group"], smallest_row))
entity, group = table["entity"], pd.Series(groups["group"].to_numpy())
people_per_group = entity.groupby(group).nunique()
groups_per_person = group.groupby(entity).nunique()
records_per_person = entity.value_counts().reindex(groups_per_person.index)
found_whole = (groups_per_person[records_per_person > 1] == 1).sum()
print(f"groups holding two people: {(people_per_group > 1).sum()} of {dedup.n_groups_:,}")
print(f"people with duplicates all in one group: {found_whole} of {(records_per_person > 1).sum()}")

# %%
# New records, without refitting
# ------------------------------
# A new record within the threshold of a representative joins the nearest
# one's group; the others are grouped among themselves and named after the
# fitted rows (``n_samples_fit_`` plus their first position).
new = [people.data[5].upper(), "Zelda Quux 1 Nowhere Lane Atlantis", people.data[7]]
for string, group, label in zip(new, dedup.predict(new), local.predict(new)):
    print(f"group {group:>6} (one process: label {label:>6})  {string}")

client.close()
cluster.close()

"""
==============================================
Nearest reads of a FASTQ file, from the shell
==============================================

Sequencing reads arrive as a gzipped FASTQ file. This example writes 2,000
simulated reads of the bundled genome to such a file, then runs the
``sklearn-ed`` command on it three ways: all-vs-all (each read's 5 nearest
other reads), an index saved once and queried with a FASTA file, and the
same answer from Python. Each shell command is shown above the call that
runs it here: ``main([...])`` takes the same arguments as the console
script.
"""

# %%
# A gzipped FASTQ of simulated reads
# ----------------------------------
# Reads of 900-1,100 bp from the first 100 kbp of the genome (about 20x
# coverage), with 1-8 % sequencing errors.
import os
import tempfile

import pandas as pd

from sklearn_ed.cli import main
from sklearn_ed.datasets import make_genome_reads
from sklearn_ed.io import Records, read_sequences, write_sequences

folder = tempfile.mkdtemp()


def here(name):
    """A file of the example's folder (the shell examples run inside it)."""
    return os.path.join(folder, name)


reads = make_genome_reads(2_100, genome_length=100_000, random_state=0).data
names = [f"read{i}" for i in range(2_000)]
qualities = ["I" * len(read) for read in reads[:2_000]]
write_sequences(here("reads.fq.gz"), Records(names, reads[:2_000], qualities))
queries = Records([f"new{i}" for i in range(100)], reads[2_000:])
write_sequences(here("new_reads.fa"), queries)
print(read_sequences(here("reads.fq.gz")).to_frame().head(3).to_string(max_colwidth=30))

# %%
# All-vs-all
# ----------
# ``sklearn-ed knn reads.fq.gz -k 5 -t 2 -o ava.tsv``: without a query file,
# every read is a query and never its own neighbor. Progress goes to stderr
# (``-q`` silences it); the table goes to ``-o`` (or stdout).
main(["knn", here("reads.fq.gz"), "-k", "5", "-t", "2", "-o", here("ava.tsv"), "-q"])
ava = pd.read_csv(here("ava.tsv"), sep="\t")
print(ava.head(6).to_string(index=False))

# %%
# Each read and its nearest neighbor overlap on the genome: the distance is
# the number of edits between the two whole reads (their sequencing errors
# plus the bases outside their overlap).
print(ava.groupby("rank")["distance"].describe()[["mean", "50%", "max"]].round(1))

# %%
# An index built once, queried many times
# ---------------------------------------
# ``sklearn-ed index reads.fq.gz -k 5 -o reads.sked`` fits and saves;
# ``sklearn-ed knn reads.sked new_reads.fa -k 5 -o hits.tsv`` loads it
# (nothing in the folder runs code) and answers the queries of a FASTA file.
main(["index", here("reads.fq.gz"), "-k", "5", "-t", "2", "-o", here("reads.sked"), "-q"])
main(["knn", here("reads.sked"), here("new_reads.fa"), "-k", "5", "-o", here("hits.tsv"), "-q"])
hits = pd.read_csv(here("hits.tsv"), sep="\t")
print(hits.head(5).to_string(index=False))

# %%
# The same from Python
# --------------------
# The command is a thin layer over :class:`~sklearn_ed.FilterRefineNeighbors`
# and :mod:`sklearn_ed.io`: the same parameters give the same table.
from sklearn_ed import FilterRefineNeighbors  # noqa: E402
from sklearn_ed.io import neighbors_frame  # noqa: E402

base = read_sequences(here("reads.fq.gz"), alphabet="dna")
new = read_sequences(here("new_reads.fa"), alphabet="dna")
search = FilterRefineNeighbors(n_neighbors=5, n_jobs=2, random_state=0).fit(base.sequences)
distances, indices = search.kneighbors(new.sequences)
table = neighbors_frame(distances, indices, new.names, base.names)
same = all(table[column].tolist() == hits[column].tolist() for column in hits.columns)
print("same table as the command line:", same)

# %%
# A file the command cannot use stops it with one line and an exit code,
# and leaves no partial output: here a query file with a protein letter.
with open(here("bad.fa"), "w") as file:
    file.write(">q1\nACGTACGT\n>q2\nACGTMKV\n")
import contextlib  # noqa: E402
import io  # noqa: E402
import textwrap  # noqa: E402

stderr = io.StringIO()
with contextlib.redirect_stderr(stderr):
    code = main(["knn", here("reads.sked"), here("bad.fa"), "-o", here("bad.tsv"), "-q"])
print(textwrap.fill(stderr.getvalue().replace(folder + os.sep, ""), 72))
print("exit code:", code, "| bad.tsv written:", os.path.exists(here("bad.tsv")))

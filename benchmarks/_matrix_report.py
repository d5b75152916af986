"""Cells of the benchmark matrix from the workers' replies, its tables and gates.

A kNN cell (base, size, query set, metric, processor, k) holds, per method,
the fit time, the time per query, the speed-ups over rapidfuzz (per query,
and for ``n_queries`` queries with the fit included) and the tie-aware top-k
accuracy on the judged queries (a returned neighbour counts when its exact
distance is at most the exact k-th distance). A join cell (data, size,
metric, processor, threshold) holds each method's time, its speed-up over
rapidfuzz, and on the judged rows its pair recall (exact methods: also
whether they returned no pair rapidfuzz did not).
"""

import numpy as np

from benchmarks._common import format_table

OURS = {"knn": ("defaults", "exact"), "join": ("auto", "partition", "brute", "dedup")}
EXACT_JOINS = ("auto", "partition", "brute")
TOLERANCE = 1e-9


def _ratio(value):
    if value is None or not np.isfinite(value):
        return "-"
    text = f"{value:.2f}x" if value < 10 else f"{value:.0f}x"
    return text + ("!" if value < 1 else "")


def _accuracy(found, exact, k):
    rows = min(len(found), len(exact))
    found, exact = np.asarray(found)[:rows, :k], np.asarray(exact)[:rows]
    kth = exact[:, k - 1][:, None]
    return float(np.mean(found <= kth + TOLERANCE))


def knn_rows(cell, replies, arrays, n_queries):
    """One row per method, k and query set of a group of kNN cells."""
    brute = replies["rapidfuzz"]
    rows = []
    for method, reply in replies.items():
        for k in cell["ks"]:
            for name in cell["queries"]:
                row = dict(cell, part="knn", method=method, k=k, queries=name)
                del row["ks"]
                fit = reply.get("fit" if method == "rapidfuzz" else f"fit_k{k}")
                query = reply.get(name if method == "rapidfuzz" else f"{name}_k{k}")
                reference = brute.get(name)
                if fit is None or query is None or reference is None:
                    row["status"] = reply.get("error") or ("timeout" if reply else "failed")
                    rows.append(row)
                    continue
                total = fit["fit_s"] + n_queries * query["query_ms"] / 1000
                brute_total = brute["fit"]["fit_s"] + n_queries * reference["query_ms"] / 1000
                row.update(
                    status="ok",
                    fit_s=fit["fit_s"],
                    search=fit.get("search"),
                    query_ms=query["query_ms"],
                    peak_mib=query.get("peak_mib"),
                    speedup_query=reference["query_ms"] / query["query_ms"],
                    speedup_total=brute_total / total,
                    judged=reference.get("judged"),
                    accuracy=_accuracy(
                        arrays[method, name, 0 if method == "rapidfuzz" else k],
                        arrays["rapidfuzz", name, 0],
                        k,
                    ),
                )
                rows.append(row)
    return rows


def join_rows(cell, replies, arrays, thresholds):
    """One row per method and threshold of a group of join cells."""
    rows = []
    for method, reply in replies.items():
        for index, threshold in enumerate(thresholds):
            row = dict(cell, part="join", method=method, threshold=threshold)
            mine, reference = reply.get(f"t{index}"), replies["rapidfuzz"].get(f"t{index}")
            if mine is None or reference is None:
                row["status"] = reply.get("error") or ("timeout" if reply else "failed")
                rows.append(row)
                continue
            truth = {tuple(pair) for pair in arrays["rapidfuzz", index].tolist()}
            found = arrays[method, index]
            if method == "dedup":  # labels: a pair is found when both share a group
                hits = sum(found[a] == found[b] for a, b in truth)
                extra = None
            else:
                pairs = {tuple(pair) for pair in found.tolist()}
                hits, extra = len(pairs & truth), len(pairs - truth)
            row.update(
                status="ok",
                seconds=mine["seconds"],
                times=mine.get("times"),
                peak_mib=mine.get("peak_mib"),
                pairs=mine["pairs"],
                speedup=reference["seconds"] / mine["seconds"],
                recall=hits / len(truth) if truth else 1.0,
                judged_rows=replies["rapidfuzz"].get("rows"),
                extra_pairs=extra,
            )
            rows.append(row)
    _auto_ratio(rows)
    return rows


def _auto_ratio(rows):
    """auto's time over the faster of partition and brute, per threshold."""
    by_threshold = {}
    for row in rows:
        if row["status"] == "ok" and row["method"] in EXACT_JOINS:
            by_threshold.setdefault(row["threshold"], {})[row["method"]] = row
    for row in rows:
        timed = by_threshold.get(row["threshold"], {})
        others = [timed[m] for m in ("partition", "brute") if m in timed]
        if row["method"] == "auto" and "auto" in timed and others:
            best = min(others, key=lambda other: other["seconds"])
            row["auto_vs_best"] = paired_ratio(row, best)


def paired_ratio(row, other):
    """The median, round by round, of ``row``'s time over ``other``'s; the ratio
    of their medians where either has no rounds.

    The methods take turns, so the calls of one round share a moment of the
    machine. On two threads a join of 10,000 words under Jaro took 25 to 40
    ms a call, the slow calls in runs (on one thread 37 to 44 ms): auto and
    brute force, running the same code, were 1.16 apart by the medians of
    their calls (matrix_joins at fa0cadb); another 15 rounds gave 1.09 by
    the medians, 1.00 round by round."""
    mine, theirs = row.get("times") or [], other.get("times") or []
    rounds = min(len(mine), len(theirs))
    if not rounds:
        return row["seconds"] / other["seconds"]
    return float(np.median(np.divide(mine[:rounds], theirs[:rounds])))


def _key(row, part):
    names = ("base", "n", "queries", "metric", "processor", "k") if part == "knn" else None
    names = names or ("base", "n", "metric", "processor", "threshold")
    return tuple(row[name] for name in names)


def _worst(rows, part, method, measure):
    scored = [r for r in rows if r["method"] == method and r["status"] == "ok"]
    return min(scored, key=lambda r: r[measure], default=None)


def gates(rows, part):
    """Per method of ours, its worst cell by each speed-up and by accuracy."""
    measures = ("speedup_total", "speedup_query", "accuracy") if part == "knn" else None
    measures = measures or ("speedup", "recall")
    found = {}
    for method in OURS[part]:
        for measure in measures:
            worst = _worst(rows, part, method, measure)
            if worst is not None:
                found[method, measure] = worst
    return found


def _cells(rows, part):
    grouped = {}
    for row in rows:
        grouped.setdefault(_key(row, part), {})[row["method"]] = row
    return grouped


def _short(status):
    """A table's word for a cell without a result (the JSON keeps the message)."""
    for word, label in (("timeout", "timeout"), ("skipped", "skipped"), ("Memory", "memory")):
        if status.startswith(word):
            return label
    return "unsupported" if status.startswith(("ValueError", "TypeError")) else "failed"


def _knn_values(row):
    if row is None or row["status"] != "ok":
        return ["n/a" if row is None else _short(row["status"]), "", ""]
    return [_ratio(row["speedup_total"]), _ratio(row["speedup_query"]), f"{row['accuracy']:.3f}"]


def knn_table(rows, n_queries):
    gate = {id(row) for row in gates(rows, "knn").values()}
    headers = ["base", "n", "queries", "metric", "proc", "k", "rf ms/q"]
    for method in ("defaults", "exact", "peer"):
        headers += [f"{method} x all", "x/q", "top-k"]
    table = []
    for key, methods in _cells(rows, "knn").items():
        brute = methods.get("rapidfuzz", {})
        peers = [r for m, r in methods.items() if m not in ("rapidfuzz", *OURS["knn"])]
        peers = [r for r in peers if r["status"] == "ok"]
        peer = max(peers, key=lambda r: (r["accuracy"], r["speedup_total"]), default=None)
        line = [key[0], f"{key[1]:,}", *map(str, key[2:]), _ms(brute.get("query_ms"))]
        for row in (methods.get("defaults"), methods.get("exact"), peer):
            line += _knn_values(row)
        line.append(peer["method"] if peer else "-")
        marks = [m for m in OURS["knn"] if id(methods.get(m)) in gate]
        line.append("<< gate: " + ", ".join(marks) if marks else "")
        table.append(line)
    headers += ["peer", ""]
    title = f"kNN: speed-up over rapidfuzz cdist ('x all': fit + {n_queries:,} queries; !: < 1x)"
    return format_table(headers, table, title=title, align="lrlllrr" + "r" * 9 + "ll")


def _ms(value):
    return "-" if value is None else f"{value:.3f}"


def join_table(rows):
    gate = {id(row) for row in gates(rows, "join").values()}
    headers = ["data", "n", "metric", "proc", "threshold", "rf s", "pairs*"]
    headers += ["auto s", "auto x", "auto/best", "partition x", "brute x", "dedup x", "dedup rec"]
    headers += ["tf-idf x", "tf-idf rec", "exact ok", ""]
    table = []
    for key, methods in _cells(rows, "join").items():
        ok = {m: r for m, r in methods.items() if r["status"] == "ok"}
        brute = ok.get("rapidfuzz", {})
        auto = ok.get("auto", {})
        exact = [ok[m] for m in EXACT_JOINS if m in ok]
        correct = all(r["recall"] == 1.0 and r["extra_pairs"] == 0 for r in exact)
        line = [key[0], f"{key[1]:,}", key[2], key[3], str(key[4])]
        line += [f"{brute['seconds']:.2f}" if brute else "-", str(brute.get("pairs", "-"))]
        line += [f"{auto['seconds']:.2f}" if auto else _status(methods.get("auto"))]
        ratio = auto.get("auto_vs_best")
        ratio = "-" if ratio is None else f"{ratio:.2f}" + ("!" if ratio > 1.1 else "")
        line += [_ratio(auto.get("speedup")), ratio]
        for method in ("partition", "brute", "dedup", "tf-idf"):
            row = ok.get(method)
            line.append(_ratio(row["speedup"]) if row else _status(methods.get(method)))
            if method in ("dedup", "tf-idf"):
                line.append(f"{row['recall']:.3f}" if row else "")
        line.append(("yes" if correct else "NO") if exact else "-")
        marks = [m for m in OURS["join"] if id(methods.get(m)) in gate]
        line.append("<< gate: " + ", ".join(marks) if marks else "")
        table.append(line)
    title = "Joins and dedup: speed-up over rapidfuzz cdist with score_cutoff (!: < 1x; auto/best: "
    title += "auto's time over the faster of partition and brute, the median of their rounds' "
    title += "ratios, !: over 1.1)"
    return format_table(headers, table, title=title, align="lrlllrr" + "r" * 10 + "ll")


def _status(row):
    return "n/a" if row is None else _short(row["status"])


def gate_lines(rows, part):
    """The worst cell of each of ours, one line each: the gate is the worst cell."""
    lines = []
    for (method, measure), row in gates(rows, part).items():
        cell = ", ".join(f"{name}={row[name]}" for name in _names(part) if name in row)
        lines.append(f"{part} {method:9s} worst {measure:13s} {row[measure]:9.3f}  ({cell})")
    below = {}
    for row in rows:
        value = row.get("speedup_total", row.get("speedup"))
        if row["method"] in OURS[part] and value is not None and value < 1:
            below[row["method"]] = below.get(row["method"], 0) + 1
    for method in OURS[part]:
        mine = [r for r in rows if r["method"] == method]
        ok = sum(r["status"] == "ok" for r in mine)
        missing = {}
        for row in mine:
            if row["status"] != "ok":
                missing[_short(row["status"])] = missing.get(_short(row["status"]), 0) + 1
        other = ", ".join(f"{count} {word}" for word, count in sorted(missing.items()))
        lines.append(
            f"{part} {method:9s} cells below 1x: {below.get(method, 0)} of {ok}"
            + (f"; without a result: {other}" if other else "")
        )
        if part == "knn":
            lines.append(_brute_force_fits(mine, method))
    return "\n".join(lines) + "\n"


def _brute_force_fits(rows, method):
    """How many of a method's fits answer by brute force (``search_method_``)."""
    fits = {
        tuple(row[name] for name in ("base", "n", "metric", "processor", "k")): row.get("search")
        for row in rows
        if row["status"] == "ok"
    }
    brute = sum(search == "brute_force" for search in fits.values())
    return f"knn {method:9s} fits answering by brute force: {brute} of {len(fits)}"


def _names(part):
    if part == "knn":
        return ("base", "n", "queries", "metric", "processor", "k")
    return ("base", "n", "metric", "processor", "threshold")

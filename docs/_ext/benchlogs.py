"""Benchmark results rendered from their result files, never pasted.

``.. benchmark-log:: words.txt`` reads ``benchmarks/results/words.txt`` at
build time and renders each plain-text table of the log as an HTML table;
under them, collapsed until clicked, the run's provenance (command, date,
commit, library versions, machine, load) as a small table; and a link to
download the raw log. ``:tables: 1,3``
selects tables (1-based); ``:provenance: no`` omits the provenance table
(when several directives show one run).

The logs are what the scripts in ``benchmarks/`` print (``_common.py``:
``print_header`` and ``format_table``); :func:`parse_log` reads them back.
"""

import re
import subprocess
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from docutils.statemachine import StringList

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
_RULE = re.compile(r"^-+(?:  +-+)+$")
_HEADER_FIELD = re.compile(r"^(command|date|commit|python|versions|machine|load|note)\s*: (.*)$")


def parse_log(text):
    """Provenance fields and tables of a benchmark log.

    Returns
    -------
    fields : list of (str, str)
        ``(name, value)`` of the header lines, in order.
    tables : list of dict
        ``{"title": str or None, "header": [...], "rows": [[...], ...]}``.
    """
    lines = text.splitlines()
    fields = [match.groups() for match in map(_HEADER_FIELD.match, lines[:40]) if match]
    tables = []
    for number, line in enumerate(lines):
        if not _RULE.match(line) or number == 0:
            continue
        starts = [match.start() for match in re.finditer(r"-+", line)]
        header = _cells(lines[number - 1], starts)
        title = None
        if (
            number >= 3
            and lines[number - 2]
            and set(lines[number - 2]) == {"-"}
            and not _RULE.match(lines[number - 2])
        ):
            title = lines[number - 3].strip()
        rows = []
        for row in lines[number + 1 :]:
            if not row.strip() or _RULE.match(row) or set(row.strip()) <= {"-", "="}:
                break
            rows.append(_cells(row, starts))
        tables.append({"title": title, "header": header, "rows": rows})
    return fields, tables


def _cells(line, starts):
    """Cells of a row, cut where each column's rule starts (format_table pads
    every cell to its column's width, so no cell crosses the next start)."""
    bounds = starts[1:] + [max(len(line), starts[-1]) + 1]
    return [line[start:stop].strip() for start, stop in zip(starts, bounds)]


def _committed_in(path):
    """For logs written before the scripts printed their commit: the commit
    that added the file (the run used the code of that commit's parent)."""
    try:
        found = subprocess.run(
            ["git", "log", "-1", "--format=%h %cs", "--", path.name],
            cwd=path.parent,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "not recorded"
    found = found.stdout.strip()
    return (
        f"not printed by this run; the log was committed in {found}"
        if found
        else "not recorded (the log is not committed yet)"
    )


def _list_table(header, rows, title=None, css_class="benchmark-table"):
    out = [
        f".. list-table:: {_escape(title)}" if title else ".. list-table::",
        "   :header-rows: 1",
        f"   :class: {css_class}",
        "",
    ]
    for row in [header] + rows:
        out.append("   * - " + _escape(row[0]))
        out += ["     - " + _escape(cell) for cell in row[1:]]
    return out + [""]


def _provenance_table(name, fields):
    """Rows of the run's header; the command as a literal (no dash ligatures)."""
    out = [".. list-table::", "   :class: benchmark-provenance", "   :widths: 12 88", ""]
    out += ["   * - run", f"     - ``{name}``"]
    for key, value in fields:
        shown = f"``{value}``" if key == "command" and "``" not in value else _escape(value)
        out += [f"   * - {key}", f"     - {shown}"]
    return out + [""]


def _escape(cell):
    """Plain text as inline reStructuredText (log cells hold ``_``, ``|``, ``*``);
    an estimate and its error (``0.443 +/- 0.083``) kept on one line as ``±``."""
    if not cell:
        return "\\ "
    cell = cell.replace(" +/- ", "\u00a0±\u00a0")
    for character in "\\*`|_[":
        cell = cell.replace(character, "\\" + character)
    if cell[:1] in "-+#:=" or cell[:2].rstrip(".").isdigit() and cell[1:3] == ". ":
        cell = "\\" + cell
    return cell


class BenchmarkLog(Directive):
    required_arguments = 1
    option_spec = {"tables": directives.unchanged, "provenance": directives.unchanged}

    def run(self):
        name = self.arguments[0]
        path = RESULTS / name
        if not path.exists():
            raise self.error(f"benchmark result file not found: {path}")
        self.state.document.settings.record_dependencies.add(str(path))
        fields, tables = parse_log(path.read_text())
        chosen = self.options.get("tables")
        if chosen == "none":
            tables = []
        elif chosen:
            tables = [tables[int(index) - 1] for index in chosen.split(",")]
        # Read before any nested parse, which changes the document's current source.
        depth = (
            len(
                Path(self.state.document.current_source)
                .relative_to(RESULTS.parents[1] / "docs")
                .parts
            )
            - 1
        )
        lines = []
        for table in tables:
            lines += _list_table(table["header"], table["rows"], table["title"])
        container = nodes.container(classes=["benchmark-log"])
        self._parse(lines, path, container)
        if self.options.get("provenance", "yes") != "no":
            shown = [[key, value] for key, value in fields if key != "note"]
            if not any(key == "commit" for key, _ in shown):
                shown.insert(1, ["commit", _committed_in(path)])
            container += _collapsed(
                "How this was measured (command, commit, versions, machine)",
                self._parse(_provenance_table(name, shown), path, nodes.container()),
            )
        self._parse(
            [
                f"Raw output: :download:`{name} <{'../' * depth}../benchmarks/results/{name}>`",
                "",
            ],
            path,
            container,
        )
        return [container]

    def _parse(self, lines, path, container):
        self.state.nested_parse(StringList(lines, source=str(path)), self.content_offset, container)
        return container


def _collapsed(summary, content):
    """``content`` inside an HTML ``<details>`` element, closed until clicked."""
    opening = f'<details class="benchmark-provenance-details"><summary>{summary}</summary>'
    return [
        nodes.raw("", opening, format="html"),
        *content.children,
        nodes.raw("", "</details>", format="html"),
    ]


def setup(app):
    app.add_directive("benchmark-log", BenchmarkLog)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

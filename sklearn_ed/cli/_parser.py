"""The command line's options, laid out as minimap2 lays out its help."""

import argparse

from ._commands import COMMANDS
from ._errors import EXIT_CODES_HELP
from ._options import input_options, other_options

DESCRIPTION = """\
Nearest neighbors, similarity joins and deduplication under edit distance
(and other string metrics) for sequence files and lists of strings. Input:
FASTA/FASTQ (plain or gzip), text (one string per line) or a CSV/TSV column.
Output: TSV with a header line, records named as in the input."""


def commands_help():
    """The ``commands:`` list that ends ``sklearn-ed --help``."""
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {command.HELP}" for name, command in COMMANDS.items()]
    return "\n".join(
        ["commands:", *lines, "", "Run 'sklearn-ed <command> -h' for a command's options."]
    )


def build_parser():
    """The argparse parser of every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="sklearn-ed",
        usage="sklearn-ed <command> [options] ...",
        description=DESCRIPTION,
        epilog=commands_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    subparsers = parser.add_subparsers(
        dest="command", metavar="<command>", required=True, help=argparse.SUPPRESS
    )
    for name, command in COMMANDS.items():
        subparser = subparsers.add_parser(
            name,
            usage=f"sklearn-ed {name} [options] {command.OPERANDS}",
            description=command.DESCRIPTION,
            epilog=f"{command.EXAMPLES}\n\n{EXIT_CODES_HELP}".lstrip(),
            formatter_class=argparse.RawDescriptionHelpFormatter,
            add_help=False,
        )
        command.add_arguments(subparser)
        input_options(subparser)
        other_options(subparser)
    return parser


def _version():
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"sklearn-ed {version('sklearn-ed')}"
    except PackageNotFoundError:
        return "sklearn-ed (not installed)"

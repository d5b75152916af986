"""What the command line reports, and the exit code each failure gets."""

EXIT_OK = 0
EXIT_FAILED = 1  # the run itself failed (the estimator refused the data, ...)
EXIT_USAGE = 2  # a wrong option or argument (argparse uses 2 as well), an output refused
EXIT_INPUT = 3  # an input file is missing, unreadable or malformed
EXIT_OUTPUT = 4  # the output's folder is missing or cannot be written to

EXIT_CODES_HELP = """\
exit status:
  0  success
  1  the run failed
  2  wrong option or argument; an output that exists without --force, or that
     --force never replaces (a folder for a table; for an index, any folder
     but an index, or one holding the current folder or an input)
  3  an input file missing or malformed
  4  output not writable (its folder is missing or read-only)"""


class CommandError(Exception):
    """A failure to report on one line of stderr, with its exit code."""

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


def usage_error(message):
    return CommandError(message, EXIT_USAGE)


def input_error(message):
    return CommandError(message, EXIT_INPUT)

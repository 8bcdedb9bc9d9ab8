"""One exception type for every user-facing error: the CLI prints it as one line, exit 2."""


class JudgebenchError(Exception):
    """A problem with the user's input or environment, worded for the user."""


class JudgebenchWarning(UserWarning):
    """A problem judgebench warns of and goes on (the command line's `judgebench: warning:` lines). A Python
    caller that passes no `on_warning` gets it through Python's warnings module."""


class NumericError(ValueError):
    """Bad input to a pure numeric function (ratings, diagnostics): no CLI semantics attached.

    The command line reports it like a JudgebenchError (one line, exit 2).
    """


class Stopped(JudgebenchError):
    """The command could not finish, through no fault of its input (e.g. a forked child was killed): exit 1."""

    exit_code = 1


class Rejected(JudgebenchError):
    """A submission that failed a check; the message is the reason."""

    def __init__(self, check: str, reason: str):
        super().__init__(f"submission rejected ({check}): {reason}")
        self.check = check
        self.reason = reason


def squeezed(text: str, limit: int) -> str:
    """`text` with every run of whitespace (newlines included) as one space, cut to `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


MESSAGE_MAX = 2_000  # characters of an error message shown; a crafted key or id may be a megabyte long


def one_line(text: str, limit: int = MESSAGE_MAX) -> str:
    """`text` safe to print as one line: control characters (newlines, terminal escapes) shown escaped, and
    cut to `limit` characters. Messages quote values from the user's files (keys, example ids)."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit:,} more characters)"


def describe_os_error(exc: OSError) -> str:
    """An OSError the command did not expect, as one printable line naming the path(s): 'PATH: No space left on
    device'. The last resort of the command line; the commands name their flag where they can."""
    paths = " -> ".join(one_line(str(name), 300) for name in (exc.filename, exc.filename2) if name is not None)
    reason = exc.strerror or one_line(str(exc)) or type(exc).__name__
    return f"{paths}: {reason}" if paths else f"{type(exc).__name__}: {reason}"

"""One exception type for every user-facing error: the CLI prints it as one line, exit 2."""


class JudgebenchError(Exception):
    """A problem with the user's input or environment, worded for the user."""


class NumericError(ValueError):
    """Bad input to a pure numeric function (ratings, diagnostics): no CLI semantics attached.

    The command line reports it like a JudgebenchError (one line, exit 2).
    """


class Rejected(JudgebenchError):
    """A submission that failed a check; the message is the reason."""

    def __init__(self, check: str, reason: str):
        super().__init__(f"submission rejected ({check}): {reason}")
        self.check = check
        self.reason = reason

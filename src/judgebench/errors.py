"""One exception type for every user-facing error: the CLI prints it as one line, exit 2."""


class JudgebenchError(Exception):
    """A problem with the user's input or environment, worded for the user."""


class Rejected(JudgebenchError):
    """A submission that failed a check; the message is the reason."""

    def __init__(self, check: str, reason: str):
        super().__init__(f"submission rejected ({check}): {reason}")
        self.check = check
        self.reason = reason

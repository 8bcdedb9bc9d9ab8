"""One exception type for every user-facing error: the CLI prints it as one line, exit 2."""


class JudgebenchError(Exception):
    """A problem with the user's input or environment, worded for the user."""

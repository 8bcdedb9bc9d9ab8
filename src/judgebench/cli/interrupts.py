"""How the `judgebench` command ends on Ctrl-C: exit 130 and one "interrupted" line, however many arrive.

Three CPython details made a quick second Ctrl-C while the data loads end the process by SIGINT itself
(status -2 to a parent, 130 + a traceback-free death to a shell) or print a traceback:

- A KeyboardInterrupt that leaves an `exec` of source text (the second one often lands in `import
  datasets`, whose dataclasses are built by `exec`) marks the interpreter "unhandled KeyboardInterrupt",
  even when `cli.main` catches it; after exiting with 130 the interpreter then kills itself by SIGINT.
  `settle` clears the mark: an `exec` of text clears it on entry.
- The interpreter's teardown (0.1-0.4 s after a run that imported datasets) restores SIGINT's default
  action: a Ctrl-C then ends the process by the signal. `settle` ignores SIGINT once the interrupt is
  being reported (the process is exiting).
- A Ctrl-C landing in a finalizer (a weakref callback) is printed as "Exception ignored ... KeyboardInterrupt"
  and lost. `watch` delivers it to the main thread again instead (nothing printed; ignored once settled).

`watch` and the ignored SIGINT only for the process's own command line (`cli.main()` without argv): a
caller's process keeps its handlers.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
from typing import Any

REDELIVER_S = 0.05  # after the hook has returned (it returns at once)


def watch() -> None:
    """From the command's start: an interrupt caught in a finalizer is raised in the main thread again."""
    default = sys.__unraisablehook__

    def hook(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            default(unraisable)
            return
        try:  # a moment later, from another thread: raised in this hook it would be ignored again
            timer = threading.Timer(REDELIVER_S, _thread.interrupt_main)  # a no-op once settled
            timer.daemon = True
            timer.start()
        except RuntimeError:  # the interpreter is shutting down: the process is exiting anyway
            pass

    sys.unraisablehook = hook


def settle(*, exiting: bool) -> None:
    """The interrupt was handled; `exiting` (the command's own process, which exits with 130 next): a further
    Ctrl-C changes nothing."""
    if exiting:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    exec("")  # clears the interpreter's "unhandled KeyboardInterrupt" mark (see the module docstring)

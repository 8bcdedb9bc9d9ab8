"""The judgebench process's allocators for the array-heavy commands (core/allocator.py): Arrow on the system
allocator, glibc keeping freed memory; other commands, a user's or a Python caller's choice untouched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from judgebench.core import allocator

VOTES = Path(__file__).resolve().parents[2] / "tasks" / "demo" / "arena_votes_demo.jsonl"

# after the command: Arrow's pool, the variable, and whether a freed 64 MB array's memory left the process
_AFTER = """
import os, sys
import numpy as np
from judgebench.cli.main import main
given = sys.argv[1:]
if given[0] == "--python-caller":
    code = main(given[1:])
else:
    sys.argv = ["judgebench", *given]
    code = main()
import pyarrow as pa
def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
block = np.ones(64 << 20, dtype=np.uint8)
held = resident()
del block
kept = resident() > held - (32 << 20)
print(code, pa.default_memory_pool().backend_name, os.environ.get("ARROW_DEFAULT_MEMORY_POOL"), kept)
"""


def _last_line(tmp_path: Path, script: str, command: tuple[str, ...], env: dict[str, str] | None,
               left_out: tuple[str, ...]) -> list[str]:
    """The words of the script's last line after the command, run with the settings `left_out` of the environment
    (and the MALLOC_ ones) and `env` added."""
    clean = {k: v for k, v in os.environ.items() if k not in left_out and not k.startswith("MALLOC_")}
    done = subprocess.run([sys.executable, "-c", script, *command], capture_output=True, text=True, timeout=120,
                          env={**clean, **(env or {})}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-800:]
    return done.stdout.splitlines()[-1].split()


def _after(tmp_path: Path, *command: str, env: dict[str, str] | None = None) -> list[str]:
    # the allocators' own settings from the environment left out
    return _last_line(tmp_path, _AFTER, command, env, ("ARROW_DEFAULT_MEMORY_POOL", "GLIBC_TUNABLES"))


def _arena(tmp_path: Path) -> tuple[str, ...]:
    return "arena", str(VOTES), "--output-dir", str(tmp_path / "arena"), "--no-plots", "--n-resamples", "0"


glibc = pytest.mark.skipif(allocator._glibc() is None or not Path("/proc/self/statm").exists(),
                           reason="glibc's mallopt and /proc: Linux with glibc")


@glibc
def test_arena_reads_arrow_with_the_system_allocator_and_keeps_freed_memory(tmp_path):
    # mimalloc's page returns and glibc's unmapping of freed arrays: 2-3 s of kernel page zeroing at 2,000,000
    # votes (docs/lab/perf.md, eighth round)
    assert _after(tmp_path, *_arena(tmp_path)) == ["0", "system", "system", "True"]


@glibc
def test_a_command_that_is_not_array_heavy_is_left_as_it_is(tmp_path):
    code, pool, variable, kept = _after(tmp_path, "tasks")
    assert (code, variable, kept) == ("0", "None", "False") and pool != "system"


@glibc
def test_a_python_caller_keeps_its_own_allocators(tmp_path):
    code, pool, variable, kept = _after(tmp_path, "--python-caller", *_arena(tmp_path))
    assert (code, variable, kept) == ("0", "None", "False") and pool != "system"


def test_an_arrow_pool_chosen_by_the_user_stands(tmp_path):
    import pyarrow as pa

    if not getattr(pa, "mimalloc_memory_pool", None):
        pytest.skip("this pyarrow has no mimalloc")
    assert _after(tmp_path, *_arena(tmp_path), env={"ARROW_DEFAULT_MEMORY_POOL": "mimalloc"})[1:3] == ["mimalloc",
                                                                                                    "mimalloc"]


@glibc
def test_an_empty_pool_variable_counts_as_unset(tmp_path):
    assert _after(tmp_path, *_arena(tmp_path), env={"ARROW_DEFAULT_MEMORY_POOL": ""}) == ["0", "system", "system",
                                                                                            "True"]


# after the command: the variable, and the thread counts of the OpenBLAS libraries numpy and scipy loaded
_BLAS = """
import os, sys
from judgebench.cli.main import main
sys.argv = ["judgebench", *sys.argv[1:]]
code = main()
import scipy.linalg
from threadpoolctl import threadpool_info
threads = sorted({i["num_threads"] for i in threadpool_info() if i["internal_api"] == "openblas"})
print(code, os.environ.get("OPENBLAS_NUM_THREADS"), ",".join(map(str, threads)) or "none")
"""


def _blas(tmp_path: Path, *command: str, env: dict[str, str] | None = None) -> list[str]:
    return _last_line(tmp_path, _BLAS, command, env, ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"))


def test_arena_runs_openblas_without_worker_threads(tmp_path):
    # each library's workers started at import and after every fork, and each spun on a core for 0.1 s: 0.33 s
    # of CPU at 2,000,000 votes (docs/lab/perf.md, twelfth round)
    code, variable, threads = _blas(tmp_path, *_arena(tmp_path))
    assert (code, variable) == ("0", "1") and threads in ("1", "none")


def test_a_blas_thread_count_chosen_by_the_user_stands(tmp_path):
    assert _blas(tmp_path, *_arena(tmp_path), env={"OMP_NUM_THREADS": "2"})[:2] == ["0", "None"]
    assert _blas(tmp_path, *_arena(tmp_path), env={"OPENBLAS_NUM_THREADS": "2"})[:2] == ["0", "2"]


def test_other_commands_keep_blas_threads(tmp_path):
    # score's and report's bootstrap products that are not exact sums run on OpenBLAS's threads: one thread sums
    # in another order, and a confidence run's Brier interval changed in its last bit (found attacking)
    assert _blas(tmp_path, "tasks")[:2] == ["0", "None"]
    run = tmp_path / "run"
    assert _blas(tmp_path, "run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo",
                 "--output-path", str(run))[:2] == ["0", "None"]
    assert _blas(tmp_path, "score", str(run))[:2] == ["0", "None"]


def test_arena_hands_the_computations_pages_back_before_its_outputs(tmp_path, monkeypatch):
    """The plots' child peaks while the outputs are written: the parent must not keep the computation's freed
    pages beside it (with glibc keeping freed memory, the processes' total grew by about 0.5 GB at 2,000,000
    votes; found attacking)."""
    from judgebench.cli.main import main
    from judgebench.human.arena import write

    seen: list[str] = []
    monkeypatch.setattr(allocator, "release_free_memory", lambda: seen.append("released"))
    real = write.write_outputs
    monkeypatch.setattr(write, "write_outputs", lambda *a, **k: (seen.append("writing"), real(*a, **k))[1])
    assert main(list(_arena(tmp_path))) == 0
    assert seen == ["released", "writing"]


# the `judgebench` command's exit (allocator.leave): an object alive at the end says whether the interpreter's
# teardown ran (its finalizer prints), an exit handler that it ran, the command's output that it was flushed
_EXIT = """
import atexit, sys, threading
class Alive:
    def __del__(self):
        print("torn down", flush=True)
alive = Alive()
atexit.register(lambda: print("exit handlers ran", flush=True))
given = sys.argv[1:]
if given[0] == "--with-thread":  # a thread that is no daemon, still running when the command ends
    given = given[1:]
    def until_the_exit():  # the usual exit stops the main thread, then waits for this one
        while threading.main_thread().is_alive():
            __import__("time").sleep(0.01)
    threading.Thread(target=until_the_exit).start()
if given[0] == "--with-sqlite":
    given = given[1:]
    import sqlite3
if given[0] == "--sigint-at-exit":  # Ctrl-C while the exit handlers run (this one runs last: registered first)
    given = given[1:]
    def interrupted():
        import os, signal, time
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)
        print("the handler finished", flush=True)
    atexit.register(interrupted)
sys.argv = ["judgebench", *given]
from judgebench.cli.main import console
console()
"""


def _exit(tmp_path: Path, *command: str) -> tuple[int, list[str]]:
    script = tmp_path / "judgebench"  # what the console script is called (allocator._is_the_process)
    script.write_text(_EXIT)
    done = subprocess.run([sys.executable, str(script), *command], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    return done.returncode, done.stdout.splitlines()


def test_an_array_heavy_command_that_succeeded_leaves_without_the_teardown(tmp_path):
    """Freeing every module's objects one by one took 0.3-0.4 s of arena's exit at 2,000,000 votes."""
    code, lines = _exit(tmp_path, *_arena(tmp_path))
    assert code == 0 and lines[-2].startswith("  wrote ") and lines[-1] == "exit handlers ran"  # flushed
    assert "torn down" not in lines
    assert (tmp_path / "arena" / "arena.json").is_file()


def test_a_ctrl_c_while_the_exit_handlers_run_cuts_none_short(tmp_path):
    # it was raised inside the running handler, which stopped there, reported to nobody, and the exit was 0
    code, lines = _exit(tmp_path, "--sigint-at-exit", *_arena(tmp_path))
    assert code == 0 and lines[-2:] == ["the handler finished", "exit handlers ran"]
    assert "torn down" not in lines


@pytest.mark.parametrize("case", [("tasks",), ("--with-thread", "arena"), ("--with-sqlite", "arena"), ("arena", "bad")])
def test_every_other_command_and_outcome_takes_the_usual_exit(tmp_path, case):
    """Another command, a thread still running, an SQLite module loaded (its connections close in their
    finalizers), a failure: the interpreter's teardown runs as always, and the exit code stands."""
    extra, command = case[:-1], case[-1]
    args = ("tasks",) if command == "tasks" else _arena(tmp_path)
    if case[-1] == "bad":
        args = ("arena", str(tmp_path / "missing.jsonl"), "--output-dir", str(tmp_path / "out"))
        extra = ()
    code, lines = _exit(tmp_path, *extra, *args)
    assert lines[-2:] == ["exit handlers ran", "torn down"]
    assert code == (2 if case[-1] == "bad" else 0)


def test_a_profiler_or_a_program_running_the_command_gets_the_usual_exit(tmp_path):
    """cProfile writes its file after the command returns, and a program that runs `python -m judgebench` with
    runpy goes on after its SystemExit: an exit without teardown took both away (found attacking)."""
    profiled = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(tmp_path / "prof.out"), "-m",
                               "judgebench", *_arena(tmp_path)], capture_output=True, text=True, timeout=180,
                              cwd=tmp_path)
    assert profiled.returncode == 0 and (tmp_path / "prof.out").stat().st_size > 0
    caller = ("import runpy, sys\nsys.argv = ['judgebench', *sys.argv[1:]]\ntry:\n"
              "    runpy.run_module('judgebench', run_name='__main__')\nexcept SystemExit as done:\n"
              "    print('the caller goes on, exit', done.code)\n")
    ran = subprocess.run([sys.executable, "-c", caller, *_arena(tmp_path)], capture_output=True, text=True,
                         timeout=180, cwd=tmp_path)
    assert ran.stdout.splitlines()[-1] == "the caller goes on, exit 0"
    module = subprocess.run([sys.executable, "-m", "judgebench", *_arena(tmp_path)], capture_output=True, text=True,
                            timeout=180, cwd=tmp_path)  # `python -m judgebench` itself: without the teardown
    assert module.returncode == 0 and "wrote" in module.stdout

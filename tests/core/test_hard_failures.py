"""Issue 27, "hard failures stay small": a typo'd provider or a broken api_base is one line before any call,
and a run whose every call fails exits with its result: no traceback, no hang.

The hang: the preload thread (preload.py) was still importing scipy when a run whose 16 calls had all failed
reached its exit; the interpreter froze that daemon thread holding the import lock, and litellm's
`AsyncHTTPHandler.__del__`, importing during shutdown, waited for it forever. The traceback: the same thread
was half-way through `import pyarrow` when allocator.release_free_memory looked pyarrow up in sys.modules.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from openai_server import Behaviour, FakeOpenAIServer

from judgebench.cli.main import main
from judgebench.core import preload
from judgebench.core.errors import JudgebenchError
from judgebench.judges import make_judge
from judgebench.judges.providers import check_provider, known_providers

EXIT_WITHIN_S = 30  # every command here ends in seconds; a hang is killed at this bound and fails the test


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), PYTHONFAULTHANDLER="1", **extra)
    env.pop("JUDGEBENCH_CALL_WORKER", None)
    return env


def _cli(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m judgebench ARGS` in a subprocess; a hang fails the test (with the stack the timeout dumps)."""
    command = [sys.executable, "-m", "judgebench", *args]
    try:
        return subprocess.run(command, check=False, env=_env(**env), capture_output=True, text=True,
                              timeout=EXIT_WITHIN_S, cwd=tmp_path)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"no exit within {EXIT_WITHIN_S} s: {command}\n{exc.stderr!r}")


def _script(code: str, tmp_path: Path, timeout: float = EXIT_WITHIN_S) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], check=False, env=_env(),
                              capture_output=True, text=True, timeout=timeout, cwd=tmp_path)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"no exit within {timeout} s\n{exc.stderr!r}")


def _messages(stderr: str) -> list[str]:
    """The lines of stderr that are not the progress bar."""
    return [line for line in stderr.replace("\r", "\n").splitlines() if line.strip() and not line.startswith("judging")]


# ----------------------------------------------------------------------------- refused before any call


def test_a_typo_in_the_provider_is_one_line_naming_the_flag_and_the_closest_provider(tmp_path: Path, capsys) -> None:
    # the command: 16 calls sent and failed, a traceback, then no exit (3 of 3 tries killed at 60 s)
    status = main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", "opnai/gpt-4o",
                   "--output-path", str(tmp_path / "out"), "--quiet"])  # fmt: skip
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert "--judge opnai/gpt-4o: unknown litellm provider 'opnai' (did you mean openai/gpt-4o?)" in err
    assert not (tmp_path / "out").exists()


def test_an_own_judge_prefix_in_capitals_is_named_in_lower_case_before_litellm_is_imported() -> None:
    """`Builtin/longer` was asked of litellm (6 s) and refused as an unknown provider, with no word of builtin/."""
    for judge, meant in (("Builtin/longer", "builtin/longer"), ("REPLAY/runs/a", "replay/runs/a")):
        with pytest.raises(JudgebenchError, match=rf"^--judge {judge}: judgebench's own judges are written in lower "
                                                  rf"case: did you mean {meant}\?$"):
            make_judge(judge)


def test_an_unknown_provider_is_refused_by_every_judge_flag() -> None:
    with pytest.raises(JudgebenchError, match=r"--judge anthropc/claude-x: .*did you mean anthropic/claude-x\?"):
        make_judge("anthropc/claude-x")
    with pytest.raises(JudgebenchError, match=r"^--judge nosuchthing/m: unknown litellm provider 'nosuchthing'; a "):
        make_judge("nosuchthing/m", {"api_key": "sk-t"})  # an api_key: no credential check, still refused
    with pytest.raises(JudgebenchError, match=r"--judge-args custom_llm_provider=opnai: .*did you mean openai\?"):
        make_judge("openai/gpt-4o", {"custom_llm_provider": "opnai"})
    with pytest.raises(JudgebenchError, match=r"unknown litellm provider 'opnai'"):
        make_judge("opnai/gpt-4o", {"api_base": "http://127.0.0.1:9/v1"})  # litellm transport: routed by the provider


def test_every_provider_litellm_knows_is_accepted_and_read_without_importing_litellm(tmp_path: Path) -> None:
    # the fast path: a known provider is looked up in litellm's files; litellm itself is not imported
    done = _script("""
        import sys
        from judgebench.judges import make_judge
        for judge in ("openai/gpt-4o", "anthropic/claude-x", "hosted_vllm/Qwen/Qwen3-8B", "ollama_chat/llama3",
                      "bedrock/anthropic.claude-x", "publicai/m", "deepinfra/meta-llama/x"):
            make_judge(judge, {"api_key": "sk-t"})
        make_judge("opnai/gpt-4o", {"api_base": "http://127.0.0.1:9/v1", "transport": "openai"})  # provider unused
        print("litellm" in sys.modules)
    """, tmp_path)
    assert done.returncode == 0 and done.stdout.split() == ["False"], done.stderr[-2000:]
    import litellm

    listed = {str(getattr(p, "value", p)) for p in litellm.provider_list}
    assert listed <= known_providers(), sorted(listed - known_providers())


def test_an_id_litellm_resolves_without_a_known_prefix_is_not_refused() -> None:
    check_provider("ft:gpt-4o-2024-08-06:org::abc/x")  # litellm maps a fine-tuned gpt-4 id to openai by its name
    with pytest.raises(JudgebenchError):
        check_provider("opnai/gpt-4o")


@pytest.mark.parametrize(
    ("api_base", "says"),
    [
        ("http://[::1", "not a well-formed URL (Invalid IPv6 URL)"),
        ("http://127.0.0.1:99999/v1", "port 99999 is not a number from 1 to 65535"),
        ("notaurl", "expected an http(s) URL such as http://127.0.0.1:8000/v1"),
        ("127.0.0.1:8000/v1", "expected an http(s) URL"),
        ("http://h:0/v1", "port 0 is not"),
        ("http://h ost/v1", "no spaces"),
        ("http://u:PW-SECRET@h:99999/v1?token=TOK-SECRET", "api_base='http://***@h:99999/v1?token=***': port 99999"),
        # a raw / in the password: read as host `u`, port `PW-`, and the port was shown
        ("https://u:PW-/SECRET@h.example.com/v1", "api_base='https://***@h.example.com/v1': its user or password holds"),
        ("https://u:12/SECRET@h.example.com/v1", "percent-encode them (%2F %3F %23)"),
    ],
)
def test_an_api_base_that_is_not_a_url_is_one_line_before_any_call(tmp_path: Path, capsys, api_base: str,
                                                                    says: str) -> None:
    # finding: a ValueError traceback ([::1), "ExceptionGroup" as the stop reason (port 99999), 554 retried calls
    # and no end (notaurl); now exit 2 before anything is loaded or sent
    for judge in ("openai/x", "anthropic/claude-x"):  # the openai transport and litellm
        status = main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", judge, "--judge-args",
                       f"api_base={api_base}", "--output-path", str(tmp_path / "out"), "--quiet"])  # fmt: skip
        err = capsys.readouterr().err
        assert status == 2 and len(err.strip().splitlines()) == 1 and says in err, err
        assert "SECRET" not in err and "PW" not in err and not (tmp_path / "out").exists()


def test_well_formed_api_bases_are_accepted() -> None:
    for base in ("http://127.0.0.1:8000/v1", "https://x.openai.azure.com", "http://[::1]:8000/v1",
                 "http://u:p@h/v1?token=t", "HTTP://H:65535", "http://u:p%2Fq@h/v1", "http://h:8000/v1/@cf/x"):
        make_judge("openai/m", {"api_base": base})


# ----------------------------------------------------------------------------- every call fails: exit, no traceback


@pytest.mark.slow
def test_the_typo_through_the_command_ends_at_once_without_a_traceback(tmp_path: Path) -> None:
    done = _cli(["run", "--tasks", "sciarena_eval", "--demo", "--judge", "opnai/gpt-4o", "--output-path", "out"],
                tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert _messages(done.stderr) == [_messages(done.stderr)[0]] and "did you mean openai/gpt-4o?" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["openai", "litellm"])
def test_a_run_whose_every_call_fails_at_the_provider_exits_without_a_traceback(tmp_path: Path, transport: str) -> None:
    # the server says 404 (model not found) to every call: a permanent error. litellm: the key and endpoint
    # come from the environment, so that litellm is imported in this process too (the credential check), as
    # in the issue, and its clients' finalizers run at exit
    with FakeOpenAIServer(Behaviour(status=404, error_message="The model `x` does not exist")) as server:
        if transport == "openai":
            args, env = ["--judge", "openai/x", "--judge-args", f"api_base={server.api_base}"], {}
        else:
            args, env = ["--judge", "openai/x"], {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": server.api_base}
        started = time.monotonic()
        done = _cli(["run", "--tasks", "sciarena_eval", "--demo", *args, "--output-path", "out",
                     "--cache-dir", str(tmp_path / "cache")], tmp_path, **env)  # fmt: skip
        took = time.monotonic() - started
        sent = server.stats().total
    assert done.returncode == 1, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "Fatal Python error" not in done.stderr, done.stderr[-3000:]
    assert "run stopped early: permanent error" in done.stderr and "does not exist" in done.stderr
    assert 0 < sent <= 64 and took < EXIT_WITHIN_S  # stopped at the first failures, not retried
    assert (tmp_path / "out" / "results.json").exists()


# ----------------------------------------------------------------------------- the mechanism, made certain


SLOW_MODULE = """
import sys, time
sys.h27_entered = True
time.sleep({seconds})
DONE = True
"""


def test_the_process_exits_while_the_preload_thread_is_in_an_import_a_finalizer_needs(tmp_path: Path) -> None:
    # what py-spy showed, made certain: at exit the preload thread is in an import (here one that takes 1 s,
    # holding that module's import lock); a finalizer run at shutdown imports the same module. Before the
    # fix the interpreter froze the daemon thread with the lock held and the process never exited. Now the
    # thread finishes that import, starts no other (h27_never is not imported) and is joined first.
    (tmp_path / "h27_slow.py").write_text(SLOW_MODULE.format(seconds=1.0))
    (tmp_path / "h27_never.py").write_text(f"open({str(tmp_path / 'went-on')!r}, 'w').close()\n")
    done = _script(f"""
        import sys, time
        sys.path.insert(0, {str(tmp_path)!r})
        from judgebench.core import preload

        class NeedsTheLock:
            def __del__(self):  # as litellm's: an import in a finalizer, errors ignored
                try:
                    import h27_slow
                except ImportError:  # too late in the shutdown to import: the lock was free
                    pass
                print("finalizer done", flush=True)

        keep = NeedsTheLock()  # finalized at shutdown, as litellm's client handlers are
        preload.need_later("h27_slow", "h27_never")
        preload.start()
        while not getattr(sys, "h27_entered", False):
            time.sleep(0.01)
        print("leaving", flush=True)
    """, tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["leaving", "finalizer done"], (done.stdout, done.stderr)
    assert not (tmp_path / "went-on").exists()  # the preload stopped after the import it was in


def test_a_module_the_preload_thread_is_importing_is_not_used_half_imported(tmp_path: Path) -> None:
    # the traceback, made certain: a stand-in pyarrow whose import takes 1 s is being preloaded when
    # release_free_memory runs; before the fix: AttributeError: partially initialized module 'pyarrow' has no
    # attribute 'default_memory_pool'
    fake = tmp_path / "fake" / "pyarrow"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(SLOW_MODULE.format(seconds=1.0) + textwrap.dedent("""
        class _Pool:
            def release_unused(self):
                print("released", flush=True)

        def default_memory_pool():
            return _Pool()
    """))
    done = _script(f"""
        import sys, time
        sys.path.insert(0, {str(fake.parent)!r})
        from judgebench.core import preload
        from judgebench.core.allocator import release_free_memory

        preload.need_later("pyarrow")
        preload.start()
        while not getattr(sys, "h27_entered", False):
            time.sleep(0.01)
        assert not hasattr(sys.modules["pyarrow"], "default_memory_pool")  # in sys.modules, half-imported
        release_free_memory()  # pyarrow half-imported: left alone
        print("half-imported: skipped", flush=True)
        preload.settle()
        release_free_memory()  # imported: its pool is released
    """, tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["half-imported: skipped", "released"], done.stdout


def test_imported_gives_a_module_only_once_its_import_has_finished(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(preload, "_wanted", [])
    monkeypatch.setattr(preload, "_thread", None)
    (tmp_path / "h27_held.py").write_text("import sys\nsys.h27_gate_in.set()\nsys.h27_gate_out.wait(10)\nDONE = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "h27_held", raising=False)
    import threading

    monkeypatch.setattr(sys, "h27_gate_in", threading.Event(), raising=False)
    monkeypatch.setattr(sys, "h27_gate_out", threading.Event(), raising=False)
    preload.need_later("h27_held")
    preload.start()
    try:
        assert sys.h27_gate_in.wait(10)
        assert "h27_held" in sys.modules and preload.imported("h27_held") is None
    finally:
        sys.h27_gate_out.set()
        preload.settle()
    assert preload.imported("h27_held").DONE and preload.imported("json") is sys.modules["json"]
    assert preload.imported("h27_not_a_module") is None


def test_stop_skips_what_is_not_imported_yet_and_a_later_start_runs_again(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(preload, "_wanted", [])
    monkeypatch.setattr(preload, "_thread", None)
    (tmp_path / "h27_first.py").write_text("import sys, time\nsys.h27_first_in = True\ntime.sleep(0.3)\n")
    (tmp_path / "h27_second.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("h27_first", "h27_second"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(sys, "h27_first_in", False, raising=False)
    preload.need_later("h27_first", "h27_second")
    preload.start()
    while not sys.h27_first_in:  # stopped while it is in the first import
        time.sleep(0.01)
    preload.stop()
    assert preload.imported("h27_first") is not None and "h27_second" not in sys.modules
    assert preload._thread is None
    preload.need_later("h27_second")  # stop() is not sticky: a later command preloads again
    preload.start()
    preload.settle()
    assert preload.imported("h27_second") is not None


def test_no_thread_is_left_waiting_for_a_call_worker_let_go_unused(tmp_path) -> None:
    # calls/worker.py reaped a worker let go unused with a daemon thread of its own; that thread kept
    # background.can_fork() false and crossed the next fork. It is reaped at the next fork instead.
    import threading

    from judgebench.calls import RunnerOptions
    from judgebench.calls.worker import CallWorker
    from judgebench.core import background

    judge = make_judge("openai/m", {"api_base": "http://127.0.0.1:9/v1", "api_key": "sk-t"})
    before = threading.active_count()
    worker = CallWorker(judge, RunnerOptions(cache_dir=tmp_path / "cache"))
    pid = worker.pid
    worker.close()
    assert threading.active_count() == before and pid in background._LET_GO
    deadline = time.monotonic() + EXIT_WITHIN_S
    while pid in background._LET_GO and time.monotonic() < deadline:
        time.sleep(0.05)
        background.reap_left_over()
    assert pid not in background._LET_GO
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no zombie


def test_no_progress_monitor_thread_is_left_running_after_datasets_loads_a_file(tmp_path, monkeypatch) -> None:
    # tqdm starts its monitor thread for every bar, the disabled ones `datasets` makes too, and stops it only
    # when a shown bar closes: after loading a data file it ran for the rest of the command, a second thread
    # that kept background.can_fork() false (the fits of score and report ran in this process) and that the
    # interpreter froze at shutdown
    import threading

    from helpers import sci_row, write_jsonl

    from judgebench.tasks.loading import load_examples
    from judgebench.tasks.registry import get_task

    monkeypatch.setenv("JUDGEBENCH_EXAMPLE_CACHE", "0")  # through datasets
    data = write_jsonl(tmp_path / "pairs.jsonl", [sci_row(i, vote="AB"[i % 2]) for i in range(6)])
    assert len(load_examples(get_task("sciarena_eval"), dataset_path=str(data)).examples) == 6
    import tqdm.std

    assert not [t for t in threading.enumerate() if isinstance(t, tqdm.std.TMonitor)]
    with tqdm.std.tqdm(total=2, disable=True):  # a later bar starts no monitor either (background.no_tqdm_monitor)
        pass
    assert not [t for t in threading.enumerate() if isinstance(t, tqdm.std.TMonitor)]


def test_two_judges_in_one_flag_are_one_line(tmp_path: Path, capsys) -> None:
    """An outside attack: `--judge openai/gpt-4o,openai/gpt-4.1` was one model id, every call of it failing."""
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "openai/gpt-4o,openai/gpt-4.1", "--demo",
                 "--output-path", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.strip() == ("judgebench: error: judge 'openai/gpt-4o,openai/gpt-4.1': one judge per "
                                               "--judge (repeat the flag for several: --judge openai/gpt-4o --judge ...)")
    assert not (tmp_path / "out").exists()


def test_a_cache_dir_that_is_a_file_says_so(tmp_path: Path, capsys) -> None:
    # an outside attack: "cache directory X: File exists" (from making the folder) did not say what was wrong
    cache = tmp_path / "cache"
    cache.write_text("not a folder")
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        status = main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "1", "--judge", "openai/m",
                       "--judge-args", f"api_base={server.api_base},api_key=x", "--cache-dir", str(cache),
                       "--output-path", str(tmp_path / "out"), "--quiet"])
        sent = server.stats().total
    err = capsys.readouterr().err
    assert status == 2 and f"cache folder {cache} (--cache-dir, or JUDGEBENCH_CACHE_DIR): a file" in err and sent == 0, err


def test_a_full_scratch_folder_while_loading_is_one_line_naming_it(tmp_path: Path, capsys, monkeypatch) -> None:
    # an outside attack: `ulimit -f` (a full temp folder alike) ended a run with "OSError: File too large"
    import resource
    import signal

    import judgebench.tasks.stream_load as stream_load

    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    real = stream_load.tempfile.TemporaryFile

    def small_scratch(*args, **kwargs):  # the limit is set once the data is read, before the spill's writes
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, hard))
        return real(*args, **kwargs)

    monkeypatch.setattr(stream_load.tempfile, "TemporaryFile", small_scratch)
    try:
        status = main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", "builtin/longer",
                       "--output-path", str(tmp_path / "out"), "--quiet"])
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    err = capsys.readouterr().err
    assert status == 2 and "cannot write the examples' scratch file in" in err and "set TMPDIR" in err, err


def test_a_query_in_api_base_on_the_litellm_transport_is_refused_before_any_call(tmp_path: Path, capsys) -> None:
    # an outside attack: litellm appended /chat/completions after the query (`/v1?sig=.../chat/completions`): every
    # call failed with a 404; the openai transport sends the query as the query
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        args = f"api_base={server.api_base}?sig=SECRETsig123,api_key=x"
        status = main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "1", "--judge", "openai/m", "--judge-args",
                       f"{args},transport=litellm", "--output-path", str(tmp_path / "a"), "--no-cache", "--quiet"])
        err = capsys.readouterr().err
        sent = server.stats().total
        assert main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "1", "--judge", "openai/m", "--judge-args",
                     args, "--output-path", str(tmp_path / "b"), "--no-cache", "--quiet"]) == 0
    assert status == 2 and sent == 0 and "has a query string" in err and "transport=openai" in err, err
    assert "SECRETsig123" not in err

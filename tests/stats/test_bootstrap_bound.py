"""--bootstrap has an upper bound (records.MAX_RESAMPLES): a typo such as 10**12 was accepted, every call
was paid for, and scoring then never finished. Refused before anything is done, everywhere it is given."""

from __future__ import annotations

import json

import pytest
from test_bad_input import DEMO, one_error_line, run_cli

import judgebench
from judgebench.core.errors import JudgebenchError
from judgebench.core.records import MAX_RESAMPLES


@pytest.mark.parametrize("command", ["run", "score", "panel"])
def test_a_huge_bootstrap_flag_is_one_line_exit_2(tmp_path, capsys, command):
    out = tmp_path / "run"
    if command != "run":
        assert run_cli(*DEMO, "--output-path", out, "--bootstrap", "0") == 0
        capsys.readouterr()
    args = {"run": [*DEMO, "--output-path", tmp_path / "new"],
            "score": ["score", out], "panel": ["panel", out, out, "--output-path", tmp_path / "panel"]}[command]
    assert run_cli(*args, "--bootstrap", str(10**12)) == 2
    assert f"--bootstrap: must be <= {MAX_RESAMPLES}, got '{10**12}'" in one_error_line(capsys)
    assert not (tmp_path / "new").exists() and not (tmp_path / "panel").exists()
    assert run_cli(*args, "--bootstrap", str(MAX_RESAMPLES + 1)) == 2
    capsys.readouterr()


def test_the_api_and_a_tampered_results_file_are_held_to_the_same_bound(tmp_path, capsys):
    out = tmp_path / "run"
    with pytest.raises(JudgebenchError, match=rf"n_resamples \(--bootstrap\): must be <= {MAX_RESAMPLES}, got {MAX_RESAMPLES + 1}$"):
        judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=out, demo=True, n_resamples=MAX_RESAMPLES + 1)
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=out, demo=True, n_resamples=0)
    with pytest.raises(JudgebenchError, match=rf"n_resamples \(--bootstrap\): must be <= {MAX_RESAMPLES}, got {10**12}$"):
        judgebench.score_run(out, n_resamples=10**12)
    results = json.loads((out / "results.json").read_text())
    results["config"]["n_resamples"] = 10**12
    (out / "results.json").write_text(json.dumps(results))
    assert run_cli("score", out) == 2
    assert "n_resamples" in one_error_line(capsys)

"""Prompt rendering and hashing, order swapping, and the built-in offline judges."""

from __future__ import annotations

import asyncio

import pytest

from judgebench.core.errors import JudgebenchError
from judgebench.core.records import PairExample
from judgebench.judges import make_judge
from judgebench.judging.prompts import build_request, load_prompt
from judgebench.tasks.features import count_citations


def _example(**changes) -> PairExample:
    data = dict(
        id="ex1",
        question="How do enzymes lower activation energy?",
        response_a="Short answer (Lee 2020).",
        response_b="A much longer answer that cites two papers (Kim et al. 2019a; Park 2021) and [4].",
        labels={"overall": "B"},
        context={"citations_a": ["Lee 2020"], "citations_b": ["Kim", "Park"], "references": "R"},
    )
    data.update(changes)
    return PairExample(**data)


def _request(order="AB", verdicts=("A", "B"), example=None, dims=(("overall", ""),), prompt="sciarena_pairwise.yaml"):
    return build_request(load_prompt(prompt), example or _example(), order, list(dims), list(verdicts))


def test_render_shows_responses_in_order_and_hashes_the_messages():
    ab, ba = _request("AB"), _request("BA")
    user_ab = ab.messages[-1]["content"]
    assert user_ab.index("Short answer") < user_ab.index("A much longer answer")
    user_ba = ba.messages[-1]["content"]
    assert user_ba.index("A much longer answer") < user_ba.index("Short answer")
    assert ab.first == ba.second and ab.prompt_hash != ba.prompt_hash
    assert ba.context["citations_a"] == ["Kim", "Park"]  # per-response context follows the response
    assert _request("AB").prompt_hash == ab.prompt_hash  # deterministic
    assert len(ab.prompt_hash) == 64


def test_template_hash_changes_with_the_file(tmp_path):
    original = load_prompt("sciarena_pairwise.yaml")
    copy = tmp_path / "mine.yaml"
    copy.write_text(original.path.read_text() + "\n# edited\n")
    assert load_prompt(str(copy)).sha256 != original.sha256


def test_a_checkout_path_to_a_bundled_prompt_names_the_bundled_template(tmp_path, monkeypatch):
    """A new user: confidence.md's `--prompt prompts/pairwise_confidence.yaml`, run outside the checkout, said only
    where it looked."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(JudgebenchError) as info:
        load_prompt("prompts/pairwise_confidence.yaml")
    assert str(info.value).endswith("; the bundled template is --prompt pairwise_confidence")
    assert load_prompt("pairwise_confidence").name == "pairwise_confidence"
    with pytest.raises(JudgebenchError) as info:
        load_prompt("prompts/nothing_like_it.yaml")
    assert "bundled template" not in str(info.value)
    with pytest.raises(JudgebenchError) as info:  # a path to the user's own edited copy: its namesake is no answer
        load_prompt(str(tmp_path / "experiments" / "sciarena_pairwise.yaml"))
    assert "bundled template" not in str(info.value)


def test_bad_templates_are_one_line_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("user: 'Compare {{ question '\n")
    with pytest.raises(JudgebenchError, match="bad.yaml: key 'user'"):
        load_prompt(str(bad))
    bad.write_text("system: hi\n")
    with pytest.raises(JudgebenchError, match="key 'user'"):
        load_prompt(str(bad))
    bad.write_text("user: '{{ nonexistent_variable }}'\n")
    with pytest.raises(JudgebenchError, match="cannot render"):
        _request(prompt=str(bad))
    with pytest.raises(JudgebenchError, match="not found"):
        load_prompt("no_such_prompt.yaml")


def test_ideation_prompts_render_criterion_references_and_joint_dimensions():
    dims = [("novelty", "Is it new?"), ("feasibility", "Can it be done?")]
    separate = _request(dims=dims[:1], verdicts=("A", "B", "TIE"), prompt="ideation_pairwise.yaml")
    text = separate.messages[-1]["content"]
    assert "Novelty: Is it new?" in text and "[[TIE]]" in text and "R" in text
    joint = _request(dims=dims, verdicts=("A", "B", "TIE"), prompt="ideation_joint.yaml")
    assert '{"novelty": "A", "feasibility": "A"}' in joint.messages[-1]["content"]
    assert joint.dimensions == ["novelty", "feasibility"]


def _answer(judge_id, request, **kwargs) -> str:
    return asyncio.run(make_judge(judge_id, **kwargs).judge(request)).text


def test_feature_judges_pick_by_their_feature_in_shown_positions():
    ab, ba = _request("AB"), _request("BA")
    assert _answer("builtin/longer", ab) == "[[B]]" and _answer("builtin/longer", ba) == "[[A]]"
    assert _answer("builtin/shorter", ab) == "[[A]]" and _answer("builtin/shorter", ba) == "[[B]]"
    assert _answer("builtin/more-citations", ab) == "[[B]]"
    assert _answer("builtin/always-a", ab) == "[[A]]" == _answer("builtin/always-a", ba)


def test_feature_judge_on_equal_features_ties_or_tosses_a_per_example_coin():
    same = _example(response_b="Short answer (Lee 2021).")  # equal lengths
    assert _answer("builtin/longer", _request(example=same, verdicts=("A", "B", "TIE"))) == "[[TIE]]"
    # binary task: a deterministic coin per example, the same dataset side in both shown orders
    flip = {"[[A]]": "[[B]]", "[[B]]": "[[A]]"}
    sides = []
    for i in range(40):
        example = _example(id=f"e{i}", response_b="Short answer (Lee 2021).")
        ab = _answer("builtin/longer", _request("AB", example=example))
        ba = _answer("builtin/longer", _request("BA", example=example))
        assert ab in flip and ba == flip[ab]  # mapped back: the same response wins in both orders
        assert _answer("builtin/longer", _request("AB", example=example)) == ab  # deterministic
        sides.append(ab)
    assert set(sides) == {"[[A]]", "[[B]]"}  # a coin, not a fixed side
    reseeded = [_answer("builtin/longer", _request("AB", example=_example(id=f"e{i}", response_b="Short answer (Lee 2021).")), seed=7) for i in range(40)]
    assert reseeded != sides


def test_coin_is_sha256_of_seed_and_example_id():
    import hashlib

    from judgebench.judges.builtin import coin_side

    for seed, example_id in ((0, "e1"), (3, "q17")):
        byte = hashlib.sha256(f"coin:{seed}:{example_id}".encode()).digest()[0]
        assert coin_side(seed, example_id) == ("A" if byte % 2 == 0 else "B")


ESCAPE = "{% set _x = cycler.__init__.__globals__.os.system('touch MARKER') %}{{ question }}"


@pytest.mark.parametrize(
    "payload",
    [
        ESCAPE,
        "{{ cycler.__init__.__globals__.os.system('touch MARKER') }}",
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ dimensions.append(1) }}{{ question }}",  # immutable: no mutation of the variables
    ],
)
def test_templates_render_sandboxed_so_an_escape_is_a_one_line_error(tmp_path, payload):
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.yaml"
    evil.write_text("user: " + json_quote(payload.replace("MARKER", str(marker))) + "\n")
    with pytest.raises(JudgebenchError, match="cannot render") as info:
        _request(prompt=str(evil))
    assert "\n" not in str(info.value)
    assert not marker.exists()


def json_quote(text: str) -> str:
    import json

    return json.dumps(text)


def test_random_judge_is_seeded_by_example_not_global_state():
    import random

    first = [_answer("builtin/random", _request(example=_example(id=f"e{i}")), seed=1) for i in range(40)]
    random.seed(999)
    again = [_answer("builtin/random", _request(example=_example(id=f"e{i}")), seed=1) for i in range(40)]
    other_seed = [_answer("builtin/random", _request(example=_example(id=f"e{i}")), seed=2) for i in range(40)]
    assert first == again != other_seed
    assert {"[[A]]", "[[B]]"} == set(first)


def test_joint_builtin_answer_is_json_per_dimension():
    dims = [("novelty", ""), ("feasibility", "")]
    text = _answer("builtin/longer", _request(dims=dims, verdicts=("A", "B", "TIE"), prompt="ideation_joint.yaml"))
    assert text == '{"novelty": "B", "feasibility": "B"}'


def test_unknown_judges_are_clear_errors():
    with pytest.raises(JudgebenchError, match="unknown built-in judge"):
        make_judge("builtin/nope")
    with pytest.raises(JudgebenchError, match="litellm model id"):
        make_judge("gpt4")
    with pytest.raises(JudgebenchError, match="not used by built-in"):
        make_judge("builtin/longer", {"temperature": "0"})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(Smith et al. 2023a)", 1),  # author-year with suffix letter
        ("as shown (Chen 2021) and (Tétreault et al. 2023a)", 2),
        ("(Smith and Lee, 2020; Wu et al. 2019b)", 2),  # two in one group
        ("numeric [3] and [1, 4]", 3),  # [3] -> 1, [1, 4] -> 2
        ("a range [2-5] counts as one marker", 1),
        ("no citations in 2020 (n=5)", 0),
    ],
)
def test_count_citations(text, expected):
    assert count_citations(text) == expected

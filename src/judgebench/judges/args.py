"""Judge arguments: `--judge-args k=v,k=v` strings converted to typed values, and which
arguments are secrets, belong to the client, or to the runner.

- integers: max_tokens, max_completion_tokens, seed, top_k, n, top_logprobs
- floats: temperature, top_p, min_p, presence_penalty, frequency_penalty, repetition_penalty
- booleans (true/false, yes/no, 1/0): drop_params, logprobs
- kept as text: api_base (alias base_url), api_key, api_version, organization,
  reasoning_effort, custom_llm_provider, transport, user, and any secret-like key
- reasoning judges: reasoning_effort (none, minimal, low, medium, high: OpenAI o-series and
  gpt-5, and the providers litellm maps it for), thinking (a JSON object such as
  {"type": "enabled", "budget_tokens": 2048}: Anthropic and Gemini through litellm) and
  thinking_budget=N (short for that object); all of them are in the cache key and the results
- headers: `extra_headers.NAME=value` (or `header.NAME=value`), or extra_headers as a
  JSON object; header values are secrets (never cached, written or printed)
- any other key: `true`/`false` -> bool, `null`/`none` -> None, an integer or a float
  -> number, `{...}`/`[...]` -> JSON, else text. Such keys reach the provider in the
  request body (openai transport: through `extra_body`; litellm: as litellm passes
  them), e.g. vLLM's top_k.
`timeout`, `num_retries` and `max_retries` belong to the runner (--timeout,
--max-retries) and are rejected here.
"""

from __future__ import annotations

import functools
import json
import math
import numbers
import operator
import re
from collections.abc import Mapping
from typing import Any

from judgebench.core.argtypes import is_boolean
from judgebench.core.errors import JudgebenchError, one_line
from judgebench.core.secrets import is_secret_name, masked_input
from judgebench.judges.providers import check_api_base

INT_ARGS = {"max_tokens", "max_completion_tokens", "seed", "top_k", "n", "top_logprobs"}
COUNT_ARGS = {"max_tokens", "max_completion_tokens", "n"}  # at least 1 (top_k -1 is vLLM's "off"; seeds may be negative)
FLOAT_ARGS = {
    "temperature",
    "top_p",
    "min_p",
    "presence_penalty",
    "frequency_penalty",
    "repetition_penalty",
}
BOOL_ARGS = {"drop_params", "logprobs"}
TEXT_ARGS = {
    "api_base",
    "base_url",
    "api_key",
    "api_version",
    "organization",
    "reasoning_effort",
    "custom_llm_provider",
    "transport",
    "user",
    "verbosity",
}
RUNNER_ARGS = {
    "timeout": "--timeout",
    "request_timeout": "--timeout",
    "num_retries": "--max-retries",
    "max_retries": "--max-retries",
    "stream": "(streaming is not used)",
    "messages": "(the prompt template)",
    "model": "--judge",
}
# client-side arguments: passed to litellm, never put in the request body on the openai transport
CLIENT_ARGS = {"api_base", "api_version", "organization", "custom_llm_provider", "drop_params"}
# where the model is served, not what it is asked: not part of the cache identity
CONNECTION_ARGS = {"api_base", "api_version", "organization"}
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")
_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}
_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")


def is_secret_arg(name: str) -> bool:
    """A secret argument (api_key, x-api-key, authToken, ...): the one rule, secrets.is_secret_name."""
    return is_secret_name(name)


def _convert_value(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        return _typed(name, value)
    text = value.strip()
    try:
        if name in INT_ARGS:
            return int(text)
        if name in FLOAT_ARGS:
            number = float(text)
            if not math.isfinite(number):
                raise ValueError(text)
            return number
    except ValueError:
        kind = "an integer" if name in INT_ARGS else "a number"
        raise JudgebenchError(f"--judge-args {name}={masked_input(repr(value))}: expected {kind}") from None
    if name in BOOL_ARGS:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise JudgebenchError(f"--judge-args {name}={masked_input(repr(value))}: expected true or false")
    if name == "reasoning_effort" and text.lower() not in REASONING_EFFORTS:
        raise JudgebenchError(f"--judge-args reasoning_effort={masked_input(repr(value))}: expected one of {', '.join(REASONING_EFFORTS)}")
    if name == "reasoning_effort":
        return text.lower()
    if name in TEXT_ARGS or is_secret_arg(name):
        return value
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "none"):
        return None
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if text[:1] in "{[":
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise JudgebenchError(f"--judge-args {name}: not valid JSON (or nested too deeply): "
                                  f"{one_line(masked_input(repr(value)), 120)}") from None
    return value


def _typed(name: str, value: Any) -> Any:
    """A value given as itself (Python, a judge YAML), in the type the command line gives a known argument when that
    loses nothing: `temperature=0` is 0.0, as `--judge-args temperature=0` is (the two had two configuration hashes
    and two sets of cache entries), `max_tokens=800.0` is 800; a boolean or a fraction where a number or an integer
    is due is one line, as on the command line. api_key is text; its value is not shown."""
    if name == "api_key" and value is not None and not isinstance(value, str):  # (a number was a TypeError later;
        # other secret-named arguments take what litellm takes: input_cost_per_token a number, use_auth_token true)
        raise JudgebenchError(f"--judge-args {name}: expected text, got {type(value).__name__} (a secret: not shown)")
    if name not in INT_ARGS | FLOAT_ARGS or value is None:
        return value
    if is_boolean(value) or not isinstance(value, numbers.Real):
        kind = "an integer" if name in INT_ARGS else "a number"
        raise JudgebenchError(f"--judge-args {name}={one_line(masked_input(repr(value)), 80)}: expected {kind}")
    if isinstance(value, numbers.Integral) and name in INT_ARGS:
        return _json_value(name, value)  # past 64 bits: one line
    if isinstance(value, numbers.Integral):  # a float argument: as the command line reads its digits
        try:
            return float(value)
        except OverflowError:
            raise JudgebenchError(f"--judge-args {name}: an integer too large for a number") from None
    if name in FLOAT_ARGS:
        return float(value)
    if math.isfinite(value) and float(value).is_integer():
        return int(value)
    raise JudgebenchError(f"--judge-args {name}={masked_input(repr(value))}: expected an integer")


def _thinking(name: str, value: Any) -> dict[str, Any]:
    """The `thinking` argument: {"type": "enabled", "budget_tokens": N} (N >= 1), from the
    object itself or from thinking_budget=N."""
    if name == "thinking_budget":
        text = str(value).strip()
        if not _INT.match(text):
            raise JudgebenchError(f"--judge-args thinking_budget={value!r}: expected an integer")
        thinking: Any = {"type": "enabled", "budget_tokens": int(text)}
    else:
        thinking = _convert_value(name, value)
    if not isinstance(thinking, dict):
        raise JudgebenchError(f"--judge-args {name}: expected a JSON object like {{\"type\": \"enabled\", \"budget_tokens\": 2048}}")
    budget = thinking.get("budget_tokens")
    if thinking.get("type", "enabled") == "enabled" and (
        not isinstance(budget, int) or isinstance(budget, bool) or budget < 1
    ):
        raise JudgebenchError(f"--judge-args {name}: budget_tokens must be an integer >= 1, got {budget!r}")
    return thinking


KNOWN_ARGS = (INT_ARGS | FLOAT_ARGS | BOOL_ARGS | TEXT_ARGS | set(RUNNER_ARGS)
              | {"thinking", "thinking_budget", "extra_headers", "extra_body", "response_format", "stop",
                 "logit_bias", "input_cost_per_mtok", "output_cost_per_mtok", "endpoint_fingerprint"})

# Providers' own arguments one letter or word off a known one (Groq's and llama.cpp's reasoning_format, OpenRouter's
# models, text-generation-webui's repetition_penalty_range and _slope): neither warned of nor refused as typos
PROVIDERS_OWN_ARGS = frozenset({"reasoning_format", "models", "repetition_penalty_range", "repetition_penalty_slope"})


def near_misses(args: Mapping[str, Any]) -> list[str]:
    """A line for each argument name that is none judgebench knows but close to one (`temprature`): it is sent to
    the provider as given (any name is: vLLM's own), enters the cache key, and its value is not the one meant."""
    lines = []
    for name in args:
        refuse_secret_near_miss(str(name))  # (refused, not warned of)
        if close := near_miss(str(name)):
            lines.append(f"--judge-args {name}: not an argument judgebench knows; did you mean {close}? "
                         "(sent to the provider as given)")
    return lines


def near_miss(name: str) -> str | None:
    """The known argument an unknown `name` is close to (`temprature`: temperature), else None (a known name, a
    secret or header, or a name close to none: a provider's own, sent as given)."""
    import difflib

    if name in KNOWN_ARGS or name in PROVIDERS_OWN_ARGS or is_secret_arg(name) or \
            name.startswith(("extra_headers.", "headers.", "header.")):
        return None
    close = difflib.get_close_matches(name, sorted(KNOWN_ARGS), n=1, cutoff=0.85)  # (min_tokens, top_a: real)
    return close[0] if close else None


SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "passphrase", "credential", "credentials",
                "authorization")  # a secret argument's last word, misspelt (or its letters swapped): refused


@functools.cache
def _plain_known_args() -> list[str]:
    """The known arguments that are not secrets (a misspelling of one is warned of, not refused)."""
    return sorted(k for k in KNOWN_ARGS if not is_secret_arg(k))


def refuse_secret_near_miss(name: str) -> None:
    """A name that reads as a misspelt secret argument (`api_kye`, `apikye`, `x-api-kye`, `hf_tokn`, `passwrd`) and
    is neither known, nor a known argument's misspelling (`max_token`: warned of), nor itself secret-named is refused
    before any call: its value, meant as a key, would be sent as a generation argument and written in clear to
    results.json and every table made from it. Real arguments whose last word is a secret word spelt right
    (`eos_token`) or in the plural (`max_new_tokens`) are not misspellings."""
    import difflib

    if name in KNOWN_ARGS or is_secret_arg(name) or name.startswith(("extra_headers.", "headers.", "header.")):
        return
    if difflib.get_close_matches(name, _plain_known_args(), n=1, cutoff=0.85):
        return
    words = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_").split("_")
    similar = lambda a, b: difflib.SequenceMatcher(None, a, b).ratio()  # noqa: E731
    if similar("_".join(words[-2:]), "api_key") >= 0.75:
        meant = "api_key"
    else:
        meant = next((w for w in SECRET_WORDS if words[-1] not in (w, w + "s")
                      and (similar(words[-1], w) >= 0.8 or sorted(words[-1]) == sorted(w))), None)
    if meant:
        raise JudgebenchError(f"--judge-args {name}: not an argument judgebench knows; a misspelt {meant}? (refused: "
                              "its value would be sent and recorded in clear as a generation argument)")


def convert_judge_args(raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Split and convert judge args: (arguments, extra headers)."""
    args: dict[str, Any] = {}
    headers: dict[str, str] = {}
    for name, value in raw.items():
        name = str(name).strip()
        refuse_secret_near_miss(name)
        if name in RUNNER_ARGS:
            raise JudgebenchError(
                f"--judge-args {name}: set by judgebench itself; use {RUNNER_ARGS[name]}"
            )
        for prefix in ("extra_headers.", "headers.", "header."):
            if name.startswith(prefix):
                headers[name[len(prefix) :]] = str(value)
                break
        else:
            if name in ("extra_headers", "headers"):
                if isinstance(value, str):
                    try:
                        value = json.loads(value)
                    except (ValueError, RecursionError):
                        value = None
                if not isinstance(value, dict):
                    raise JudgebenchError(
                        f"--judge-args {name}: expected a JSON object of headers "
                        "(or use extra_headers.NAME=value)"
                    )
                headers.update({str(k): str(v) for k, v in value.items()})
            elif name in ("thinking", "thinking_budget"):
                if "thinking" in args:
                    raise JudgebenchError("--judge-args: thinking is given twice (thinking_budget is short for it)")
                args["thinking"] = _json_value(name, _thinking(name, value))
            elif name in ("base_url", "api_base"):
                if "api_base" in args:
                    raise JudgebenchError("--judge-args: api_base is given twice (base_url is another name for it)")
                check_api_base(value)  # a URL, or one line before any call (providers.py)
                args["api_base"] = value
            else:
                args[name] = _json_value(name, _convert_value(name, value))
                if name in COUNT_ARGS and args[name] is not None and args[name] < 1:  # (a walkthrough: max_tokens=-5
                    raise JudgebenchError(f"--judge-args {name}={args[name]}: expected an integer >= 1")  # was sent)
    return args, headers


MAX_ARG_DEPTH = 64  # nesting of one argument's value (a response_format schema is a few levels deep)


def _json_value(name: str, value: Any, depth: int = 0) -> Any:
    """An argument's value as the JSON it is stored, hashed and sent as: numpy's numbers as Python's, a tuple as
    a list; anything JSON has no form for (a set, bytes, NaN, a non-text key) is one line naming the argument.
    results.json stores what this returns, and the configuration hash is taken over it: the two agree."""
    if depth > MAX_ARG_DEPTH:
        raise JudgebenchError(f"--judge-args {name}: nested more than {MAX_ARG_DEPTH} levels deep")
    if value is None or isinstance(value, (str, bool)):
        return value
    if is_boolean(value):  # numpy's too
        return bool(value)
    if isinstance(value, numbers.Integral):
        number = operator.index(value)
        if abs(number) >= 2**63:  # (no provider takes one; a 5,000-digit one failed in Python's int-to-text limit)
            raise JudgebenchError(f"--judge-args {name}: an integer past 64 bits")
        return number
    if isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise JudgebenchError(f"--judge-args {name}: {value!r} is not a finite number")
        return number
    if isinstance(value, (list, tuple)):
        return [_json_value(name, item, depth + 1) for item in value]
    if isinstance(value, Mapping):
        odd = next((key for key in value if not isinstance(key, str)), None)
        if odd is not None:  # (the key's type only: a secret argument's keys are never shown)
            raise JudgebenchError(f"--judge-args {name}: object keys must be text, got a key of type {type(odd).__name__}")
        return {key: _json_value(name, item, depth + 1) for key, item in value.items()}
    raise JudgebenchError(f"--judge-args {name}: a {type(value).__name__} is no JSON value "
                          "(text, number, true/false, null, a list or an object)")


def split_provider(model: str, args: dict[str, Any]) -> tuple[str, str]:
    """(provider, model name) from `provider/model`, or from custom_llm_provider."""
    forced = args.get("custom_llm_provider")
    if forced:
        prefix = f"{forced}/"
        return str(forced), model[len(prefix) :] if model.startswith(prefix) else model
    provider, _, name = model.partition("/")
    return provider, name


def body_args(args: dict[str, Any]) -> dict[str, Any]:
    """The judge arguments that go in an OpenAI chat completions body (client-side ones
    left out, `extra_body` merged in), as given: one place for the openai transport and
    the batch JSONL."""
    body: dict[str, Any] = {}
    for name, value in args.items():
        if name in CLIENT_ARGS:
            continue
        if name == "extra_body" and isinstance(value, dict):
            body.update(value)
        else:
            body[name] = value
    return body


def parse_judge_args(text: str | None) -> dict[str, str]:
    """'temperature=0,max_tokens=512' -> {'temperature': '0', 'max_tokens': '512'} (typed by the judge). A comma
    inside a JSON value's brackets does not split it: `thinking={"type":"enabled","budget_tokens":2048}`. A part
    that is no key=value is quoted with what may be a key hidden, and not at all after a secret's value."""
    args: dict[str, str] = {}
    for part in filter(None, _items(text or "")):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise JudgebenchError(f"--judge-args: {_not_a_pair(part, list(args))}")
        if key.strip() in args:
            raise JudgebenchError(f"--judge-args: key '{key.strip()}' is given twice")
        args[key.strip()] = value.strip()
    return args


def _not_a_pair(part: str, before: list[str]) -> str:
    """Why `part` is refused, without showing a secret: a JSON object given whole, a secret's value split at a comma
    in it, or the part with its key-like words hidden."""
    if part.lstrip().startswith("{") and not before:
        return "expected key=value pairs (a JSON object of arguments belongs in a judge configuration file: --judge FILE.yaml)"
    if before and is_secret_arg(before[-1]):
        return (f"expected key=value, got a part without '=' after {before[-1]} (not shown: a comma in that secret's "
                "value? give it in its environment variable or a judge configuration file)")
    return f"expected key=value, got '{masked_input(part)}'"


def _items(text: str) -> list[str]:
    """`text` split at its commas, except those inside a JSON value: a value that starts with `{` or `[` runs to
    where its brackets close (outside its strings). Brackets in any other value are text (a key `Pa{ss` had
    swallowed the arguments after it)."""
    pieces, items, at = text.split(","), [], 0
    while at < len(pieces):
        item, at = pieces[at], at + 1
        value = item.partition("=")[2].lstrip()
        if value[:1] in ("{", "["):
            state, parts = _brackets(value, (0, False, False)), [item]
            while state[0] > 0 and at < len(pieces):  # (each piece scanned once and joined once: a long JSON value
                state = _brackets("," + pieces[at], state)  # is linear; appending to the item was quadratic)
                parts.append(pieces[at])
                at += 1
            item = ",".join(parts)
        items.append(item)
    return items


def _brackets(text: str, state: tuple[int, bool, bool]) -> tuple[int, bool, bool]:
    """(brackets still open, inside a string, after a backslash) at the end of `text`, from `state` at its start
    (a JSON text scanned piece by piece; brackets in its strings not counted)."""
    depth, in_string, escaped = state
    for char in text:
        if in_string:
            in_string = not (char == '"' and not escaped)
            escaped = char == "\\" and not escaped
        elif char == '"':
            in_string, escaped = True, False
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
    return depth, in_string, escaped

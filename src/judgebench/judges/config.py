"""Named judge configurations: a judge is a model id + its arguments + a prompt (+ a display name, a price).

One format for `run --judge CONFIG.yaml`, `run --judge FOLDER/` (every *.yaml / *.yml in it, sorted: a
folder of configurations is a registry) and `--judges-file`:

    name: o4-mini (low effort)          # optional display name (alias: id)
    judge: openai/o4-mini               # the model id (alias: model)
    judge_args: {reasoning_effort: low} # as --judge-args (alias: args); a mapping or "k=v,..." text
    prompt: pairwise_v1                 # optional: a prompt template name or file
    price: {input_per_mtok: 0.2, output_per_mtok: 0.6}   # optional: USD per million tokens

A file holds one such mapping, a list of them (a bare judge id is an entry too), or `{judges: [...]}`.

Every run records two things about its configuration (results.json `config`):

- `judge_name`: the display name given, if any;
- `judge_config_hash`: sha256 (16 hex) of everything that changes the answers: the model id, its public
  arguments (the endpoint included, secrets redacted, header values as one salted hash), and the prompt
  template's hash. The display name, the price and the transport are left out: renaming a judge or
  correcting its price keeps the hash. `submit` replaces an entry only when the hash is the same.

`display_label(judge, args, name)` is what a table shows: the name, else the model id followed by the
arguments that change answers (`openai/o4-mini [reasoning_effort=high]`); tables add what still tells
two rows apart (`label_rows`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgebench.core.errors import JudgebenchError, one_line
from judgebench.core.files import load_yaml, regular_bytes
from judgebench.core.names import is_builtin
from judgebench.core.secrets import REDACTED
from judgebench.core.text import NAME_MAX, display_name_error

CONFIG_KEYS = ("name", "id", "judge", "model", "judge_args", "args", "prompt", "price")
PRICE_ARGS = ("input_cost_per_mtok", "output_cost_per_mtok")
# arguments that never change what the judge answers: not in the configuration hash or the label
NOT_ANSWER_ARGS = {"transport", *PRICE_ARGS, "drop_params"}
HASH_LENGTH = 16
YAML_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class JudgeConfig:
    """One judge of a run: its model id, `--judge-args` (as text or typed), display name, prompt, object."""

    judge: str
    judge_args: dict[str, Any] = field(default_factory=dict)
    judge_object: Any = None  # the caller's own judge (judges/own.py); `judge` is its id
    name: str | None = None
    prompt: str | None = None
    source: str | None = None  # the file it was read from (for messages)


def is_config_path(value: str) -> bool:
    """Whether a `--judge` value names a configuration file or a folder of them rather than a model id (an empty
    value does not: Path("") is the current folder; nor does a folder without a .yaml file, which a model id such as
    `hosted_vllm/qwen` may name by chance)."""
    if not value.strip():
        return False
    if value.lower().endswith(YAML_SUFFIXES):
        return True
    folder = Path(value)
    try:
        return folder.is_dir() and any(p.suffix.lower() in YAML_SUFFIXES for p in folder.iterdir())
    except OSError:
        return False


def read_judge_configs(path: str | os.PathLike[str], flag: str = "--judge") -> list[JudgeConfig]:
    """The judge configurations of a YAML file, or of every YAML file in a folder (sorted by name)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in YAML_SUFFIXES and p.is_file())
        if not files:
            raise JudgebenchError(f"{flag} {path}: the folder holds no .yaml judge configuration")
        return [config for file in files for config in read_judge_configs(file, flag)]
    try:
        data = load_yaml(regular_bytes(path))
    except OSError as exc:
        raise JudgebenchError(f"{flag} {path}: cannot read ({exc.strerror or exc})") from None
    except JudgebenchError:
        raise
    except Exception as exc:  # yaml errors: one line
        raise JudgebenchError(f"{flag} {path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if isinstance(data, dict) and set(data) == {"judges"}:
        data = data["judges"]
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not data:
        raise JudgebenchError(
            f"{flag} {path}: expected a non-empty list of judge configurations {{judge: ID, judge_args: ..., name: ...}}, or one"
        )
    return [config_entry(path, number, entry, flag) for number, entry in enumerate(data, start=1)]


def config_entry(path: Path, number: int, entry: Any, flag: str = "--judges-file") -> JudgeConfig:
    """One entry of a configuration file; one-line errors naming the file and the entry."""
    from judgebench.judges.args import parse_judge_args

    where = f"{flag} {path}: entry {number}"
    if isinstance(entry, str) and entry.strip():
        _check_entry(entry.strip(), {}, where)
        return JudgeConfig(entry.strip(), source=str(path))
    if not isinstance(entry, dict):
        raise JudgebenchError(f"{where}: expected a judge id or a mapping with keys {', '.join(CONFIG_KEYS)}")
    unknown = [str(k) for k in entry if k not in CONFIG_KEYS]
    if unknown:
        raise JudgebenchError(f"{where}: unknown key '{unknown[0]}' (known: {', '.join(CONFIG_KEYS)})")
    for a, b in (("judge", "model"), ("judge_args", "args"), ("name", "id")):
        if a in entry and b in entry:
            raise JudgebenchError(f"{where}: give '{a}' or '{b}', not both")
    judge = entry.get("judge", entry.get("model"))
    if not isinstance(judge, str) or not judge.strip():
        raise JudgebenchError(f"{where}: 'judge' must be a judge id (text)")
    name = entry.get("name", entry.get("id"))
    if name is not None and not isinstance(name, (str, int, float)):
        raise JudgebenchError(f"{where}: 'name' must be a short text (1-{NAME_MAX} characters)")
    if name is not None and (why := display_name_error(str(name))):
        raise JudgebenchError(f"{where}: 'name' {why}")
    prompt = entry.get("prompt")
    if prompt is not None and (not isinstance(prompt, str) or not prompt.strip()):
        raise JudgebenchError(f"{where}: 'prompt' must be a prompt template name or file")
    if prompt is not None and not Path(prompt).is_absolute() and prompt.lower().endswith(YAML_SUFFIXES):
        candidate = path.parent / prompt  # a template file next to the configuration
        if candidate.is_file():
            prompt = str(candidate)
    raw = entry.get("judge_args", entry.get("args")) or {}
    if isinstance(raw, str):
        try:
            args: dict[str, Any] = parse_judge_args(raw)
        except JudgebenchError as exc:
            raise JudgebenchError(f"{where}: {exc}") from None
    elif isinstance(raw, dict):
        args = {str(k): as_text(v) for k, v in raw.items()}
    else:
        raise JudgebenchError(f"{where}: 'judge_args' must be a mapping or 'k=v,...' text")
    if is_builtin(judge.strip()) and (args or entry.get("price") is not None):
        raise JudgebenchError(f"{where}: built-in judge {judge.strip()} takes no judge_args or price "
                              "(it sends no call)")
    given = [key for key in PRICE_ARGS if key in args]
    if given and entry.get("price") is not None:
        raise JudgebenchError(f"{where}: give 'price' or {given[0]} in 'judge_args', not both")
    if len(given) == 1:
        raise JudgebenchError(f"{where}: 'judge_args' gives {given[0]} alone: give both {PRICE_ARGS[0]} and "
                              f"{PRICE_ARGS[1]} (USD per million tokens)")
    for key in given:  # checked here, so that an error names the file and entry (not --judge-args)
        price_per_mtok(args[key], f"{where}: judge_args {key}={one_line(str(args[key]), 40)}")
    args.update(_price_args(entry.get("price"), where))
    _check_entry(judge.strip(), args, where)
    return JudgeConfig(judge.strip(), args, name=None if name is None else str(name).strip(), prompt=prompt, source=str(path))


def _check_entry(judge: str, args: dict[str, Any], where: str) -> None:
    """What a run would refuse of an entry (an unknown built-in judge, a judge argument of the wrong type), said
    naming the file and entry (it named --judge-args, or the id alone, and the file was left to guess)."""
    from judgebench.judges.args import convert_judge_args

    try:
        if is_builtin(judge):
            from judgebench.judges.builtin import make_builtin_judge

            make_builtin_judge(judge)
        convert_judge_args(args)
    except JudgebenchError as exc:
        raise JudgebenchError(f"{where}: {exc}") from None


def _price_args(price: Any, where: str) -> dict[str, str]:
    """`price:` as the judge arguments it stands for, checked here so that an error names the file and entry."""
    if price is None:
        return {}
    aliases = {"input_per_mtok": PRICE_ARGS[0], "output_per_mtok": PRICE_ARGS[1], "input": PRICE_ARGS[0],
               "output": PRICE_ARGS[1], PRICE_ARGS[0]: PRICE_ARGS[0], PRICE_ARGS[1]: PRICE_ARGS[1]}
    if not isinstance(price, dict) or not price:
        raise JudgebenchError(f"{where}: 'price' must be a mapping {{input_per_mtok: USD, output_per_mtok: USD}}")
    if unknown := [str(k) for k in price if k not in aliases]:
        raise JudgebenchError(f"{where}: 'price' has no key '{one_line(unknown[0], 60)}' (input_per_mtok and "
                              "output_per_mtok, or input and output)")
    args = {aliases[str(k)]: as_text(v) for k, v in price.items()}
    if len(args) != 2 or len(price) != 2:
        raise JudgebenchError(f"{where}: 'price' needs input_per_mtok and output_per_mtok, once each (USD per "
                              "million tokens)")
    for key, value in price.items():
        price_per_mtok(as_text(value), f"{where}: price {key}={one_line(repr(value), 40)}")
    return args


MAX_PRICE_PER_MTOK = 10_000  # USD per million tokens: 16x the dearest in litellm's cost map (o1-pro, 600; a typo
# past it printed costs of 300 digits)


def price_per_mtok(text: Any, where: str) -> float:
    """One price in USD per million tokens (a number from 0 to MAX_PRICE_PER_MTOK), or a one-line error
    starting with `where` (the flag or the configuration file that gave it)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise JudgebenchError(f"{where}: expected a number (USD per million tokens)") from None
    if not math.isfinite(value) or not 0 <= value <= MAX_PRICE_PER_MTOK:
        raise JudgebenchError(f"{where}: expected a price from 0 to {MAX_PRICE_PER_MTOK:,} (USD per million tokens)")
    return value


def as_text(value: Any) -> str:
    """A YAML value as --judge-args would give it (the judge types it the same way)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def answer_args(public_args: dict[str, Any]) -> dict[str, Any]:
    """The public arguments that change answers (price, transport and drop_params left out)."""
    return {k: v for k, v in sorted(public_args.items()) if k not in NOT_ANSWER_ARGS}


def config_hash(judge: str, public_args: dict[str, Any], prompt_hash: str, reask: int | None = None) -> str:
    """The configuration's hash: model id, answer-changing public arguments, prompt hash, and --reask when set
    (a re-asked answer replaces an unparseable one; without it the hash is as it was before reask counted) (16 hex)."""
    identity = {"judge": judge, "args": answer_args(public_args), "prompt": prompt_hash, **({"reask": reask} if reask else {})}
    blob = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:HASH_LENGTH]


def configuration_hash(judge: Any, prompt_hash: str, reask: int = 0) -> str:
    """The hash of a judge object's configuration: public arguments, prompt and --reask, with the header
    values' hash folded in when the judge sends headers (their values are never written)."""
    args = dict(judge.public_args())
    identity = judge.cache_identity() if judge.cacheable else {}
    if "header_values_sha256" in identity:
        args["extra_headers"] = identity["header_values_sha256"]
    if "endpoint_secrets_sha256" in identity:
        args["api_base"] = identity["endpoint_secrets_sha256"]
    if "endpoint_fingerprint_sha256" in identity:
        args["endpoint_fingerprint"] = identity["endpoint_fingerprint_sha256"]
    return config_hash(judge.id, args, prompt_hash, reask)


def args_text(args: dict[str, Any], *, limit: int = 80) -> str:
    """`k=v, k=v` of the answer-changing arguments, cut to `limit` characters."""
    parts = []
    for key, value in answer_args(args).items():
        if isinstance(value, dict):
            value = json.dumps(value, sort_keys=True, separators=(",", ":"))
        parts.append(f"{key}={value}")
    text = ", ".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def named_judge(judge: str, name: str | None) -> str:
    """A run's judge as its readers name it (report and sweep titles, compare, the export card, the viewer): the model
    id, with the configuration's display name when it has one (`openai/o4-mini (Temp zero)`)."""
    return f"{judge} ({name})" if name else judge


def display_label(judge: str, args: dict[str, Any] | None = None, name: str | None = None) -> str:
    """A row's judge label: the given name, else the id with its answer-changing arguments."""
    if name:
        return name
    text = args_text(args or {}, limit=60)
    return f"{judge} [{text}]" if text else judge


def run_config_hash(config: Any) -> str:
    """A run's configuration hash (a RunConfig): as recorded, else derived from its public arguments and
    prompt hash (runs written before the hash was recorded). A run that sent headers, or whose api_base hides a part,
    is given the derived hash too: the recorded one folds in their hash, which no reader can check
    (`public_config_hash`, `hash_folds_hidden_parts`)."""
    recorded = getattr(config, "judge_config_hash", None)
    if recorded and not hash_folds_hidden_parts(config):
        return recorded
    return public_config_hash(config)


def public_config_hash(config: Any) -> str:
    """The configuration hash derived from what a run's results.json shows: judge, public arguments (header values
    redacted), prompt hash and reask; a panel's from its id, its members' hashes and their prompts' combined hash.
    Equal to the recorded hash for a run whose hash folds in nothing hidden and for every panel."""
    if getattr(config, "kind", "run") == "panel":
        return config_hash(config.judge, {"members": [m.config_hash for m in config.members]}, config.prompt_template_hash)
    return config_hash(config.judge, config.judge_args, config.prompt_template_hash, getattr(config, "reask", None))


def hash_folds_hidden_parts(config: Any) -> bool:
    """Whether the run's recorded hash folds in what results.json cannot show: header values (results.json then shows
    `extra_headers` with the names and redacted values, LiteLLMJudge.public_args; an empty one, or `headers`, sends
    nothing) or an api_base's hidden parts (shown as ***, `redact_url`)."""
    args = config.judge_args or {}
    headers, base = args.get("extra_headers"), args.get("api_base")
    return (isinstance(headers, dict) and bool(headers)) or (isinstance(base, str) and REDACTED in base)


def member_labels(members: list[Any]) -> list[str]:
    """Distinct display labels of panel members (PanelMember): the name, else the judge id; labels alike get their
    configuration hash (`openai/stub-model #1a2b3c4d`), short then whole, then their place in the panel, until none is
    another's (every one of them tagged: the first of two alike once kept its bare label, and a name written as
    another member's tagged label, `ci-judge #2706c3e8`, read as that member), as the leaderboard's labels are."""
    bare = [m.name or m.judge for m in members]
    labels = list(bare)
    suffixes = (lambda i: (members[i].config_hash or "")[:8], lambda i: members[i].config_hash or "", lambda i: str(i + 1))
    for suffix in suffixes:
        counts = Counter(labels)
        for i in [i for i, label in enumerate(labels) if counts[label] > 1]:
            labels[i] = f"{bare[i]} #{suffix(i)}" if suffix(i) else labels[i]
    for _ in members:  # then places added until none clashes (a name may be written as another's tagged label)
        counts = Counter(labels)
        clashing = [i for i, label in enumerate(labels) if counts[label] > 1]
        if not clashing:
            break
        for i in clashing:
            labels[i] = f"{labels[i]} #{i + 1}"
    return labels

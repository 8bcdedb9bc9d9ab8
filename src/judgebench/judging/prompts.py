"""Judge prompt templates (YAML with Jinja2 `system` and `user` parts), rendering and hashing."""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import threading
import time
from dataclasses import dataclass
from functools import cached_property
from json.encoder import ESCAPE_DCT
from pathlib import Path
from typing import Any

import jinja2
import jinja2.runtime
import yaml
from jinja2 import meta, nodes
from jinja2.compiler import CodeGenerator
from jinja2.sandbox import ImmutableSandboxedEnvironment

from judgebench.core.bulk import trusted, trusts
from judgebench.core.errors import JudgebenchError, squeezed
from judgebench.core.files import load_yaml, regular_bytes
from judgebench.core.names import PROMPT_KEYS, is_builtin
from judgebench.core.records import JudgeRequest, Order, PairExample
from judgebench.core.resources import prompts_dir

_TRUSTED = trusts(JudgeRequest)  # build_request(checked=True) builds without validating again
_GIVEN = tuple(name for name in JudgeRequest.model_fields if name not in ("reask_reminder", "repeat"))  # build_request's fields
LOOP_BUDGET = 1_000_000  # loop iterations in one render of one template part (all loops together)
RENDER_SECONDS = 5.0  # wall time of one render
OUTPUT_MAX = 10_000_000  # characters one rendered part, or one string or list an expression builds, may hold
_LOOP_GUARD = "_judgebench_loop_budget"  # the name every for loop's iterable is wrapped in (_budgeted)


class TemplateBudget(Exception):
    """A template render went past its budget (loops, time, output size)."""


def _sized(value: Any) -> Any:
    """`value`, unless it is a text or list longer than OUTPUT_MAX."""
    if isinstance(value, (str, list, tuple)) and len(value) > OUTPUT_MAX:
        raise TemplateBudget(f"a text or list of more than {OUTPUT_MAX:,} items")
    return value


def _no_huge_numbers(args: Any) -> None:
    """A width, padding or count above OUTPUT_MAX (`center(3e9)`, `'%0*d' % (2e9, 1)`) is refused before the call
    allocates it."""
    for arg in args:
        if isinstance(arg, (int, float)) and not isinstance(arg, bool) and abs(arg) > OUTPUT_MAX:
            raise TemplateBudget(f"a number above {OUTPUT_MAX:,} given to a call")


class _BudgetedCodeGenerator(CodeGenerator):
    """`a ~ b` joins through the environment's size check (a doubling loop of `~` built gigabytes)."""

    def visit_Concat(self, node: nodes.Concat, frame: Any) -> None:
        self.write("environment.sized_join((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class _BudgetedEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox, plus a cap on what one expression may build, checked before the memory is taken: `*`, `+`,
    `%` and `~` on texts and lists, `**`, and every call's numeric arguments and result (methods such as
    `'x'.center(n)` and every filter). Without it `'x' * 10**10`, a doubling loop or `center(3e9)` filled the
    memory before any check on the output."""

    code_generator_class = _BudgetedCodeGenerator
    intercepted_binops = frozenset(["*", "**", "+", "%"])

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(right, (int, float)) and abs(right) > 1024:
            raise TemplateBudget(f"exponent {right} is above the limit of 1024")
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(times, int) and len(seq) * times > OUTPUT_MAX:
                    raise TemplateBudget(f"a repeated text or list of more than {OUTPUT_MAX:,} items")
        if (operator == "+" and isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple))
                and len(left) + len(right) > OUTPUT_MAX):
            raise TemplateBudget(f"a text or list of more than {OUTPUT_MAX:,} items")
        if operator == "%" and isinstance(left, str):
            _no_huge_numbers(right if isinstance(right, tuple) else (right,))
        return _sized(super().call_binop(context, operator, left, right))

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (jinja's signature)
        _no_huge_numbers((*args, *kwargs.values()))
        return _sized(super().call(__context, __obj, *args, **kwargs))

    def sized_join(self, parts: Any) -> str:
        total = 0
        texts = []
        for part in parts:
            text = str(part)
            total += len(text)
            if total > OUTPUT_MAX:
                raise TemplateBudget(f"a joined text of more than {OUTPUT_MAX:,} characters")
            texts.append(text)
        return "".join(texts)


def _sized_filter(name: str, function: Any) -> Any:
    """A filter with the same checks as a call (its numeric arguments, then its result's size)."""

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        _no_huge_numbers((*args[1:], *kwargs.values()))
        return _sized(function(*args, **kwargs))

    return checked


_ENV = _BudgetedEnvironment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False)
_ENV.filters.update({name: _sized_filter(name, f) for name, f in _ENV.filters.items()})
_BUDGET = threading.local()


def _loop_budget(iterable: Any) -> Any:
    """Every for loop's items, counted against the render's budget (`_render` sets it): nested
    `range(100000)` loops hung `run` before its first call."""
    state = getattr(_BUDGET, "state", None)
    for n, item in enumerate(iterable):
        if state is not None:
            state[0] -= 1
            if state[0] < 0:
                raise TemplateBudget(f"more than {LOOP_BUDGET:,} loop iterations in one render")
            if not n & 1023 and time.monotonic() > state[1]:
                raise TemplateBudget(f"rendering took more than {RENDER_SECONDS:g} s")
        yield item


_ENV.globals[_LOOP_GUARD] = _loop_budget


def _budgeted(text: str) -> nodes.Template:
    """The parsed template with every for loop's iterable wrapped in `_loop_budget`."""
    tree = _ENV.parse(text)
    for loop in tree.find_all(nodes.For):
        call = nodes.Call(nodes.Name(_LOOP_GUARD, "load"), [loop.iter], [], None, None, lineno=loop.lineno)
        call.set_environment(_ENV)
        loop.iter = call
    return tree


DIMENSION_VARIABLES = {"dimension", "criterion", "dimensions"}  # build_request's variables that name the dimension


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    path: Path
    system: str | None
    user: str
    sha256: str  # hash of the template file's bytes: recorded in results

    @cached_property
    def _compiled(self) -> list[tuple[str, jinja2.Template, dict[str, Any], str | None]]:
        """Each part compiled once, with its globals flattened once (Template.render merges the
        globals' ChainMap into a new dict on every call: most of a render's time for short templates),
        and, for a part that is plain text (no expression, tag or variable), its text rendered once."""
        parts = [("system", self.system), ("user", self.user)]
        compiled = [(role, _ENV.from_string(_budgeted(text)), _is_plain(text)) for role, text in parts if text]
        return [(role, t, dict(t.globals), _render(t, dict(t.globals)) if plain else None) for role, t, plain in compiled]

    @cached_property
    def variables_read(self) -> frozenset[str]:
        """The variables the template's parts read (wherever they stand: a branch never taken counts)."""
        used: set[str] = set()
        for text in (self.system, self.user):
            if text:
                used |= meta.find_undeclared_variables(_ENV.parse(text))
        return frozenset(used)

    def names_dimension(self) -> bool:
        """Whether the template reads a variable that differs between dimensions (build_request's `dimension`,
        `criterion`, `dimensions`): one that does not asks every dimension of a judgment the same question."""
        return bool(self.variables_read & DIMENSION_VARIABLES)

    def unshown(self, *names: str) -> str | None:
        """A warning when the template never reads some of `names` (the variables holding what is judged): the
        judge would answer without seeing it. None when it reads them all."""
        missing = [f"{{{{ {name} }}}}" for name in names if name not in self.variables_read]
        if not missing:
            return None
        return (f"prompt {self.name} never shows {' or '.join(missing)}: the judge is asked to judge "
                f"{'them' if len(missing) > 1 else 'it'} without seeing {'them' if len(missing) > 1 else 'it'}")

    def render(self, variables: dict[str, Any]) -> list[dict[str, str]]:
        """The chat messages; any failure of the template (a sandbox refusal, a type error in an
        expression, an oversized range) is one line naming the template file.

        Same output as `Template.render(variables)`: a context of the globals overlaid with the
        variables, rendered by the template's own (sandboxed) render function. A plain-text part renders
        the same whatever the variables: its text rendered once is reused."""
        try:
            return [
                {"role": role, "content": _render(t, {**g, **variables}) if fixed is None else fixed}
                for role, t, g, fixed in self._compiled
            ]
        except Exception as exc:  # noqa: BLE001 - a template is data: whatever it raises is the user's input error
            raise JudgebenchError(f"{self.path}: cannot render template ({type(exc).__name__}: {_one_line(exc)})") from None


def _render(template: jinja2.Template, parent: dict[str, Any]) -> str:
    _BUDGET.state = [LOOP_BUDGET, time.monotonic() + RENDER_SECONDS]  # _loop_budget's counters for this render
    try:
        text = _ENV.concat(template.root_render_func(_context(template, parent)))  # type: ignore[attr-defined]
    finally:
        _BUDGET.state = None
    if len(text) > OUTPUT_MAX:
        raise TemplateBudget(f"the rendered text is longer than {OUTPUT_MAX:,} characters")
    return text.strip()


def _is_plain(text: str) -> bool:
    """Whether a template part is text only: every node of its body is output of literal template data."""
    body = _ENV.parse(text).body
    return all(isinstance(node, nodes.Output) and all(isinstance(n, nodes.TemplateData) for n in node.nodes) for node in body)


def _context(template: jinja2.Template, parent: dict[str, Any]) -> jinja2.runtime.Context:
    """A render context over `parent` (globals and variables already merged). Without `globals`, the
    context skips listing the globals' ChainMap (used only to export a template module: never here)."""
    return jinja2.runtime.new_context(_ENV, template.name, template.blocks, parent, shared=True, globals=None)


def _one_line(exc: BaseException) -> str:
    return squeezed(str(exc), 300)


def template_files(name: str) -> list[str]:
    """The file names a template name stands for: itself, and NAME.yaml unless it ends in .yaml or .yml
    (`sciarena_pairwise`, as runs and tables name a template; `x.v2` too)."""
    return [name] if name.lower().endswith((".yaml", ".yml")) else [name, f"{name}.yaml"]


def find_prompt(name_or_path: str, task_folder: Path | None = None) -> Path:
    """A template by path (from the current folder), by name relative to the task's folder, or by name in prompts/,
    each as written, then as NAME.yaml (`template_files`)."""
    folders = [Path(), *([task_folder] if task_folder is not None else []), prompts_dir()]
    for file in template_files(name_or_path):
        for folder in folders:
            if (folder / file).is_file():
                return folder / file
    if Path(name_or_path).is_dir():  # (it said "not found", where it is a folder)
        raise JudgebenchError(f"prompt template '{name_or_path}' is a folder; give a template's YAML file or name")
    searched = ", ".join(str(folder) for folder in folders[1:])
    given = Path(name_or_path)  # `prompts/x.yaml` from a checkout's docs, run where no prompts/ folder is (not a
    bundled = given.name  # path to the user's own copy elsewhere: its bundled namesake is not what was edited)
    hint = f"; the bundled template is --prompt {Path(bundled).stem}" if given.parts[:-1] == ("prompts",) and any(
        (prompts_dir() / file).is_file() for file in template_files(bundled)) else ""
    raise JudgebenchError(f"prompt template '{name_or_path}' not found (looked in the current folder, {searched}){hint}")


def load_prompt(name_or_path: str, task_folder: Path | None = None) -> PromptTemplate:
    path = find_prompt(name_or_path, task_folder)
    try:
        data = regular_bytes(path)
    except OSError as exc:
        raise JudgebenchError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        raw = load_yaml(data)
    except yaml.YAMLError as exc:
        raise JudgebenchError(f"{path}: invalid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(raw, dict):
        raise JudgebenchError(f"{path}: a prompt template must be a YAML mapping with a 'user' key")
    unknown = sorted(set(raw) - set(PROMPT_KEYS), key=str)
    if unknown:
        close = difflib.get_close_matches(str(unknown[0]), PROMPT_KEYS, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f" (allowed: {', '.join(PROMPT_KEYS)})"
        raise JudgebenchError(f"{path}: unknown key '{unknown[0]}'{hint}")
    if not isinstance(raw.get("user"), str):
        raise JudgebenchError(f"{path}: key 'user' (the user message template) is missing or not text")
    for part in ("system", "user"):
        if raw.get(part):
            _check_template(path, part, raw[part])
    return PromptTemplate(
        name=str(raw.get("name") or path.stem),
        path=path,
        system=raw.get("system"),
        user=raw["user"],
        sha256=hashlib.sha256(data).hexdigest(),
    )


def _check_template(path: Path, part: str, text: Any) -> None:
    """Parse one part; a syntax error, a filter or test of no such name (jinja2 finds some only when the branch
    holding them renders: after the calls of an earlier judge), or a tag that would load another file, is one
    line (at load: before any call)."""
    if not isinstance(text, str):
        raise JudgebenchError(f"{path}: key '{part}' must be text")
    try:
        tree = _ENV.parse(text)
    except jinja2.TemplateSyntaxError as exc:
        raise JudgebenchError(f"{path}: key '{part}' line {exc.lineno}: {exc.message}") from None
    for node in tree.find_all((nodes.Filter, nodes.Test)):
        known, kind = (_ENV.filters, "filter") if isinstance(node, nodes.Filter) else (_ENV.tests, "test")
        if node.name not in known:
            raise JudgebenchError(f"{path}: key '{part}' line {node.lineno}: no {kind} named '{node.name}'")
    for node in tree.find_all((nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends)):
        tag = type(node).__name__.lower()
        raise JudgebenchError(f"{path}: key '{part}' line {node.lineno}: '{tag}' is not allowed (a template is one file)")


def reads_no_prompt(judge: object) -> bool:
    """Whether a judge decides without reading its prompt (a built-in baseline: lengths, citations, chance), so that
    what the prompt shows is nothing to warn of."""
    return isinstance(judge, str) and is_builtin(judge)


def shown_responses(example: PairExample, order: Order) -> tuple[str, str]:
    """The (first, second) responses as shown: AB as in the dataset, BA swapped."""
    if order == "AB":
        return example.response_a, example.response_b
    return example.response_b, example.response_a


def build_request(
    template: PromptTemplate,
    example: PairExample,
    order: Order,
    dimensions: list[tuple[str, str]],  # (name, criterion); several in joint mode
    verdicts: list[str],
    *,
    checked: bool = False,
) -> JudgeRequest:
    """Render one judge call for an example, its dimension(s) and the shown order.

    `checked`: the order, dimensions and verdicts come from a validated task (judgments.plan_requests),
    so the request is built from its validated parts without validating them again (bulk.trusted)."""
    first, second = shown_responses(example, order)
    context = _shown_context(example.context, order)
    variables = {
        "question": example.question,
        "response_first": first,
        "response_second": second,
        "context": context,
        "dimension": dimensions[0][0],
        "criterion": dimensions[0][1],
        "dimensions": [{"name": n, "criterion": c} for n, c in dimensions],
        "verdicts": verdicts,
        "allow_tie": "TIE" in verdicts,
    }
    texts = {"question": example.question, "response_a": example.response_a, "response_b": example.response_b,
             **{f"context.{key}": value for key, value in example.context.items()}}
    messages = render_example(template, variables, example.id, texts)
    values = {  # in JudgeRequest's field order
        "example_id": example.id,
        "dimensions": [name for name, _ in dimensions],
        "order": order,
        "question": example.question,
        "first": first,
        "second": second,
        "context": context,
        "verdicts": list(verdicts),
        "messages": messages,
        "prompt_hash": hash_messages(messages),
        "reask_reminder": None,  # left to its default (not among the fields given)
        "repeat": 0,  # the same
    }
    if checked and _TRUSTED:
        return trusted(JudgeRequest, values, set(_GIVEN))
    return JudgeRequest(**{name: values[name] for name in _GIVEN})


def render_example(template: PromptTemplate, variables: dict[str, Any], example_id: str,
                   texts: dict[str, Any]) -> list[dict[str, str]]:
    """`template.render(variables)` for one example (every kind's); a failure names the example: a field of it
    (`texts`: field -> value) longer than a rendered part may be is named as the cause (a 30-million-character
    response blamed the bundled template and named no row), else the template's own error follows the id."""
    try:
        return template.render(variables)
    except JudgebenchError as exc:
        long = {name: len(value) for name, value in texts.items() if isinstance(value, str) and len(value) > OUTPUT_MAX}
        if not long:
            raise JudgebenchError(f"example id {example_id}: {exc}") from None
        name = max(long, key=long.__getitem__)
        raise JudgebenchError(f"example id {example_id}: field '{name}' holds {long[name]:,} characters, more than a "
                              f"prompt may hold ({OUTPUT_MAX:,}); shorten it or leave the example out") from None


def _shown_context(context: dict[str, Any], order: Order) -> dict[str, Any]:
    """Swap per-response context (keys ending in _a/_b) along with the responses."""
    if order == "AB":
        return dict(context)
    swapped = {}
    for key, value in context.items():
        if key.endswith("_a"):
            swapped[key[:-2] + "_b"] = value
        elif key.endswith("_b"):
            swapped[key[:-2] + "_a"] = value
        else:
            swapped[key] = value
    return swapped


# The prompt hash every record stores: sha256 of the messages' JSON, written without the json encoder.


_ESCAPE_OF: dict[int, bytes] = {ord(c): e.encode() for c, e in ESCAPE_DCT.items() if ord(c) < 0x20 or c in '"\\'}
_PLAIN = bytes(range(256)).translate(None, bytes(_ESCAPE_OF))  # the bytes never escaped
_BACKSLASH = ord("\\")
_OPEN, _MIDDLE, _CLOSE, _SEPARATOR = b'{"content": "', b'", "role": "', b'"}', b', {"content": "'


def hash_messages(messages: list[dict[str, str]]) -> str:
    """sha256 (hex) of the messages as `json.dumps(messages, sort_keys=True, ensure_ascii=False)`, UTF-8."""
    data = chat_json(messages)
    if data is None:
        data = json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(data).hexdigest()


def chat_json(messages: object) -> bytes | None:
    """`json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()` for a list of {content, role}
    messages with text values; None for any other shape or text that is not valid UTF-8 (a lone surrogate)."""
    if type(messages) is not list:
        return None
    pieces = [b"["]
    for message in messages:
        if type(message) is not dict or len(message) != 2:
            return None
        content, role = message.get("content"), message.get("role")
        if type(content) is not str or type(role) is not str:
            return None
        try:
            pieces += (_SEPARATOR if len(pieces) > 1 else _OPEN, _escaped(content), _MIDDLE, _escaped(role), _CLOSE)
        except UnicodeEncodeError:
            return None
    pieces.append(b"]")
    return b"".join(pieces)


_SHORT: dict[str, bytes] = {}  # escapes of short texts that repeat (roles, a system prompt); at most 1,000


def _escaped(text: str) -> bytes:
    """escape_utf8, remembered for short texts."""
    if len(text) > 256:
        return escape_utf8(text)
    data = _SHORT.get(text)
    if data is None:
        data = escape_utf8(text)
        if len(_SHORT) < 1_000:
            _SHORT[text] = data
    return data


def escape_utf8(text: str) -> bytes:
    """The UTF-8 bytes of json's escape of `text` (ensure_ascii=False), without the quotes."""
    data = text.encode()
    present = set(data.translate(None, _PLAIN))  # the byte values to escape (one pass in C; usually a newline)
    if _BACKSLASH in present:  # first: every other escape adds a backslash
        present.discard(_BACKSLASH)
        data = data.replace(b"\\", _ESCAPE_OF[_BACKSLASH])
    for byte in present:
        data = data.replace(bytes((byte,)), _ESCAPE_OF[byte])
    return data

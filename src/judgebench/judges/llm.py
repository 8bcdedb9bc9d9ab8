"""LLM judges: the official openai SDK for OpenAI-compatible endpoints, litellm for every
other provider; one attempt per call (the runner retries).

Judge arguments (`--judge-args k=v,k=v`) arrive as strings and are converted here:
- integers: max_tokens, max_completion_tokens, seed, top_k, n, top_logprobs
- floats: temperature, top_p, min_p, presence_penalty, frequency_penalty, repetition_penalty
- booleans (true/false, yes/no, 1/0): drop_params, logprobs
- kept as text: api_base (alias base_url), api_key, api_version, organization,
  reasoning_effort, custom_llm_provider, transport, user, and any secret-like key
- headers: `extra_headers.NAME=value` (or `header.NAME=value`), or extra_headers as a
  JSON object; header values are secrets (never cached, written or printed)
- any other key: `true`/`false` -> bool, `null`/`none` -> None, an integer or a float
  -> number, `{...}`/`[...]` -> JSON, else text. Such keys reach the provider in the
  request body (openai transport: through `extra_body`; litellm: as litellm passes
  them), e.g. vLLM's top_k.
`timeout`, `num_retries` and `max_retries` belong to the runner (--timeout,
--max-retries) and are rejected here.

Secrets: api_key, header values and any argument named like a key, secret, password,
credential or token are used for the call only. `cache_identity()` and `public_args()`
leave them out, and error messages are scrubbed of them.

Transports (`transport=auto|openai|litellm`):
- openai: for OpenAI-compatible endpoints given by api_base (providers openai,
  hosted_vllm, openai_like, custom_openai): `openai.AsyncOpenAI(base_url=api_base,
  max_retries=0).chat.completions.create(...)`. Arguments the SDK's `create` knows are
  passed by name, any other (vLLM's top_k, chat_template_kwargs, ...) through
  `extra_body`, so they land in the request body as given (OpenAI chat format, no
  per-provider mapping). The key is api_key, else $<PROVIDER>_API_KEY, else none (no
  Authorization header; $OPENAI_API_KEY is never sent to another provider's server).
  Each event loop gets OPENAI_CLIENTS_PER_LOOP clients, reused for every call and closed
  by aclose(). The call is priced from litellm's bundled cost map (input/output price
  per token; None when the model is not in it), and litellm is not imported at all.
- litellm: `litellm.acompletion(...)` with num_retries=0 / max_retries=0, so litellm
  never retries behind the runner's back; litellm maps the arguments per provider and
  prices the call with `litellm.completion_cost` (None when the model is not priced).
- auto (default): openai when the provider is OpenAI-compatible and api_base is set
  (self-hosted vLLM, a local server, a proxy), litellm otherwise (hosted APIs,
  anthropic/, gemini/, ollama/, ...).
Why two: on a 2-core machine `import litellm` takes ~5 s and each `litellm.acompletion`
costs ~8 ms of CPU, which caps one process well below what a local vLLM server at
concurrency 64 answers; the SDK call costs ~3-4 ms (docs/runner.md has the figures).
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import re
import time
from typing import Any

from ..errors import JudgebenchError
from ..records import JudgeReply, JudgeRequest
from ..secrets import install_log_redaction, redact_url, redact_value, url_secrets
from .base import Judge, JudgeCallError

INT_ARGS = {"max_tokens", "max_completion_tokens", "seed", "top_k", "n", "top_logprobs"}
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
SECRET_NAME = re.compile(
    r"(^|_)(api_?key|key|secret|password|passwd|credentials?|token|authorization|auth)$",
    re.IGNORECASE,
)
OPENAI_COMPATIBLE = {"openai", "hosted_vllm", "openai_like", "custom_openai"}
# AsyncOpenAI clients (each with its own connection pool) per event loop, used in turn.
# httpx's pool probes every idle connection's socket each time it hands out a connection,
# so one pool of 64 connections costs more CPU per call than four pools of 16 (profiled:
# ~0.6 ms per call at concurrency 64, a few points of throughput on a 2-core machine).
OPENAI_CLIENTS_PER_LOOP = 4
TRANSPORTS = ("auto", "litellm", "openai")
RETRYABLE_STATUS = {408, 409, 425, 429}
# 4xx that concern one request only (its prompt), not the run: recorded FAILED, run goes on
REQUEST_LEVEL_ERRORS = ("ContextWindowExceededError", "ContentPolicyViolationError")
# authentication / permission failures: permanent on every transport, whatever the status
# the provider or litellm reports (litellm turns a missing key into an InternalServerError)
AUTH_ERRORS = ("AuthenticationError", "PermissionDeniedError")
# client-side "no key at all" messages (whatever status litellm attaches to them)
AUTH_TEXT = ("missing credentials", "api_key client option must be set")
# providers whose only credential is an API key in the environment (as litellm's
# validate_environment names it). Others (bedrock, vertex_ai, azure, ...) also take
# profiles, instance roles or tokens that cannot be checked up front: not checked.
PREFLIGHT_PROVIDERS = {"openai", "anthropic", "gemini", "mistral", "groq", "deepseek", "xai", "openrouter"}

_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}
_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")
_KEYLIKE = re.compile(r"\b(sk|pk|rk|key)-[A-Za-z0-9_\-*]{6,}")


def is_secret_arg(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def _convert_value(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    text = value.strip()
    try:
        if name in INT_ARGS:
            return int(text)
        if name in FLOAT_ARGS:
            return float(text)
    except ValueError:
        kind = "an integer" if name in INT_ARGS else "a number"
        raise JudgebenchError(f"--judge-args {name}={value!r}: expected {kind}") from None
    if name in BOOL_ARGS:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise JudgebenchError(f"--judge-args {name}={value!r}: expected true or false")
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
        except ValueError:
            raise JudgebenchError(f"--judge-args {name}: not valid JSON: {value!r}") from None
    return value


def convert_judge_args(raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Split and convert judge args: (arguments, extra headers)."""
    args: dict[str, Any] = {}
    headers: dict[str, str] = {}
    for name, value in raw.items():
        name = str(name).strip()
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
                    except ValueError:
                        value = None
                if not isinstance(value, dict):
                    raise JudgebenchError(
                        f"--judge-args {name}: expected a JSON object of headers "
                        "(or use extra_headers.NAME=value)"
                    )
                headers.update({str(k): str(v) for k, v in value.items()})
            elif name == "base_url":
                args["api_base"] = value
            else:
                args[name] = _convert_value(name, value)
    return args, headers


def _parse_retry_after(headers: Any) -> float | None:
    """Seconds from Retry-After (seconds or an HTTP date) or retry-after-ms."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000.0)
        value = headers.get("retry-after")
    except Exception:
        return None
    if value is None:
        return None
    value = str(value).strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _import_litellm() -> Any:
    # Offline machines: litellm would otherwise try (and retry) fetching the remote cost
    # map at import. The cost map bundled with the installed litellm is the reproducible one.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.set_verbose = False
    litellm.turn_off_message_logging = True
    return litellm


_COST_MAP: dict[str, Any] | None = None


def _load_cost_map() -> dict[str, Any]:
    """litellm's bundled cost map, read without importing litellm (which takes seconds)."""
    global _COST_MAP
    if _COST_MAP is None:
        import importlib.util
        from pathlib import Path

        _COST_MAP = {}
        spec = importlib.util.find_spec("litellm")
        for folder in (spec.submodule_search_locations or []) if spec else []:
            path = Path(folder) / "model_prices_and_context_window_backup.json"
            if path.is_file():
                try:
                    _COST_MAP = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    _COST_MAP = {}
                break
    return _COST_MAP


def cost_map_prices(model: str, provider: str) -> tuple[float, float] | None:
    """(input, output) USD per token from litellm's cost map, or None when not priced."""
    cost_map = _load_cost_map()
    for name in (f"{provider}/{model}", model):
        entry = cost_map.get(name)
        if not isinstance(entry, dict):
            continue
        if entry.get("litellm_provider") not in (provider, None) and name == model:
            continue
        price_in = entry.get("input_cost_per_token")
        price_out = entry.get("output_cost_per_token")
        if isinstance(price_in, (int, float)) and isinstance(price_out, (int, float)):
            return float(price_in), float(price_out)
    return None


class LiteLLMJudge(Judge):
    """A judge model reached through the openai SDK or litellm (see the module docstring
    for arguments and transports)."""

    cacheable = True

    def __init__(self, model: str, judge_args: dict[str, Any] | None = None):
        self.id = model
        self.model = model
        args, headers = convert_judge_args(dict(judge_args or {}))
        self.transport = str(args.pop("transport", "auto"))
        if self.transport not in TRANSPORTS:
            raise JudgebenchError(
                f"--judge-args transport={self.transport!r}: expected one of {', '.join(TRANSPORTS)}"
            )
        self._api_key: str | None = args.pop("api_key", None)
        self._secrets = {k: v for k, v in args.items() if is_secret_arg(k)}
        self._args = {k: v for k, v in args.items() if not is_secret_arg(k)}
        self._headers = headers
        self.timeout_s: float = 120.0  # set by the runner (--timeout)
        self._shape: dict[str, Any] | None = None  # resolved once for the openai transport
        self._clients: dict[int, tuple[Any, list[Any]]] = {}  # id(loop) -> (loop, AsyncOpenAI clients)
        self._turn = 0
        install_log_redaction()  # httpx logs request URLs (a signed api_base's query) at INFO

    def __repr__(self) -> str:
        return f"LiteLLMJudge({self.model!r}, {self.public_args()!r})"

    # -- identity and reporting (no secrets)
    def cache_identity(self) -> dict[str, Any]:
        """Model id and every generation argument. Where the model is served (api_base,
        api_version, organization) and secrets are left out: moving a server to another
        port or host keeps its cache."""
        args = {k: v for k, v in sorted(self._args.items()) if k not in CONNECTION_ARGS}
        return {
            "judge": self.model,
            "args": redact_value(args),  # URL userinfo and query values never reach the cache
            "header_names": sorted(h.lower() for h in self._headers),
        }

    def public_args(self) -> dict[str, Any]:
        """Arguments safe to write to results: secrets removed, header values redacted, and
        the userinfo and query-string values of every URL replaced by *** (redact_url)."""
        out: dict[str, Any] = redact_value(dict(self._args))
        if self._headers:
            out["extra_headers"] = {name: "<redacted>" for name in sorted(self._headers)}
        if self.transport != "auto":
            out["transport"] = self.transport
        return out

    def _secret_values(self) -> list[str]:
        values = [self._api_key] if self._api_key else []
        values += [str(v) for v in self._secrets.values() if v]
        values += [v for v in self._headers.values() if v]
        values += url_secrets(json.dumps(self._args, default=str))
        return sorted({v for v in values if len(v) >= 4}, key=len, reverse=True)

    def _scrub(self, message: str) -> str:
        """The message without any secret: URL userinfo/query values, keys, header values."""
        message = redact_url(message)
        for secret in self._secret_values():
            message = message.replace(secret, "***")
        return _KEYLIKE.sub(lambda m: m.group(1) + "-***", message)

    # -- before the run
    def preflight(self) -> None:
        """A hosted provider (no api_base) without an api_key argument needs its credential
        environment variable(s): raise JudgebenchError naming them when they are unset."""
        if self._args.get("api_base") or self._api_key or self._secrets:
            return  # self-hosted endpoints need no key; explicit credentials are trusted
        provider, _ = self._split_provider()
        if self.transport == "openai" or provider in ("hosted_vllm", "openai_like", "custom_openai"):
            return
        litellm = _import_litellm()
        try:
            if litellm.get_llm_provider(self.model)[1] not in PREFLIGHT_PROVIDERS:
                return
            found = litellm.validate_environment(model=self.model)
        except Exception:  # an unknown provider: litellm will say what it needs
            return
        missing = list(found.get("missing_keys") or [])
        if missing and not found.get("keys_in_environment"):
            raise JudgebenchError(
                f"judge {self.model}: no credentials: set {' or '.join(missing)} "
                "(or pass --judge-args api_key=...)"
            )

    async def warm_up(self) -> None:
        """Import the transport and make this loop's clients before the first timed call."""
        if self.uses_openai_transport():
            self._openai_shape()
            self._openai_client()
        else:
            _import_litellm()

    # -- the call
    def _split_provider(self) -> tuple[str, str]:
        """(provider, model name) from `provider/model` or custom_llm_provider."""
        forced = self._args.get("custom_llm_provider")
        if forced:
            prefix = f"{forced}/"
            name = self.model[len(prefix) :] if self.model.startswith(prefix) else self.model
            return str(forced), name
        provider, _, name = self.model.partition("/")
        return provider, name

    def uses_openai_transport(self) -> bool:
        if self.transport == "litellm":
            return False
        if self.transport == "openai":
            return True
        return bool(self._args.get("api_base")) and self._split_provider()[0] in OPENAI_COMPATIBLE

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        if self.uses_openai_transport():
            return await self._judge_openai(request)
        return await self._judge_litellm(request)

    async def aclose(self) -> None:
        """Close the openai SDK clients (called by the runner when a run ends). A client
        made on an event loop that has since closed cannot be closed any more: dropped."""
        entries, self._clients = self._clients, {}
        for loop, clients in entries.values():
            if loop.is_closed():
                continue
            for client in clients:
                try:
                    await client.close()
                except Exception:
                    pass

    # -- litellm transport
    async def _judge_litellm(self, request: JudgeRequest) -> JudgeReply:
        litellm = _import_litellm()
        kwargs: dict[str, Any] = dict(self._args)
        kwargs.update(self._secrets)
        if self._api_key:
            kwargs["api_key"] = self._api_key
        if self._headers:
            kwargs["extra_headers"] = dict(self._headers)
        started = time.monotonic()
        try:
            response = await litellm.acompletion(
                model=self.model,
                messages=request.messages,
                timeout=self.timeout_s,
                num_retries=0,
                max_retries=0,
                **kwargs,
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise self._convert_litellm_error(exc) from None
        latency = time.monotonic() - started
        text = None
        try:
            text = response.choices[0].message.content
        except (AttributeError, IndexError, TypeError):
            pass
        usage = getattr(response, "usage", None)
        tokens_in = getattr(usage, "prompt_tokens", None)
        tokens_out = getattr(usage, "completion_tokens", None)
        cost: float | None
        try:
            cost = float(litellm.completion_cost(completion_response=response))
        except Exception:
            cost = None  # not in litellm's cost map: unknown, never 0
        return JudgeReply(
            text=text if text is not None else "",
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost_usd=cost,
            latency_s=latency,
        )

    def _convert_litellm_error(self, exc: Exception) -> JudgeCallError:
        litellm = _import_litellm()
        status = getattr(exc, "status_code", None)
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None) or getattr(exc, "litellm_response_headers", None)
        retry_after = _parse_retry_after(headers)
        name = type(exc).__name__
        message = self._scrub(f"{name}: {getattr(exc, 'message', None) or exc}")
        if _is_auth_error(exc, status, message):
            return JudgeCallError(f"authentication failed: {message}", retryable=False)
        if isinstance(exc, (litellm.Timeout, asyncio.TimeoutError, TimeoutError)):
            return JudgeCallError(f"timed out after {self.timeout_s:g}s ({message})", retryable=True)
        retryable_types = (
            litellm.RateLimitError,
            litellm.APIConnectionError,
            litellm.InternalServerError,
            litellm.ServiceUnavailableError,
            getattr(litellm, "BadGatewayError", litellm.ServiceUnavailableError),
        )
        if isinstance(exc, retryable_types):
            return JudgeCallError(message, retryable=True, retry_after_s=retry_after)
        if isinstance(status, int) and (status in RETRYABLE_STATUS or status >= 500):
            return JudgeCallError(message, retryable=True, retry_after_s=retry_after)
        # litellm maps prompt-level errors per provider; an OpenAI-compatible endpoint's own
        # wording (e.g. a content filter) is recognised the same way as on the openai transport
        request_level = any(c.__name__ in REQUEST_LEVEL_ERRORS for c in type(exc).__mro__) or (
            status == 400 and _is_request_level(message, getattr(exc, "code", None))
        )
        return JudgeCallError(message, retryable=False, fatal=not request_level)

    # -- openai transport (OpenAI-compatible endpoints, through the official openai SDK)
    def _openai_shape(self) -> dict[str, Any]:
        """What every call of this judge sends, resolved once: the model name, the key,
        the arguments `create` knows, the rest (in `extra_body`), and the prices."""
        if self._shape is not None:
            return self._shape
        provider, model = self._split_provider()
        api_base = self._args.get("api_base")
        if not api_base:
            raise JudgeCallError(
                f"judge {self.model}: transport=openai needs api_base", retryable=False
            )
        known = _sdk_create_params()
        params: dict[str, Any] = {}
        extra_body: dict[str, Any] = {}
        for name, value in self._args.items():
            if name in CLIENT_ARGS:
                continue
            if name == "extra_body" and isinstance(value, dict):
                extra_body.update(value)
            elif name in known:
                params[name] = value
            else:  # e.g. vLLM's top_k, chat_template_kwargs: sent in the body as given
                extra_body[name] = value
        if extra_body:
            params["extra_body"] = extra_body
        key = self._api_key or os.environ.get(f"{provider.upper()}_API_KEY") or None
        if key is None:
            # No key: send no Authorization header at all. The SDK wants some api_key at
            # construction (else it reads $OPENAI_API_KEY, which must not go to another
            # provider's server); the per-request Omit keeps this placeholder off the wire.
            import openai

            params["extra_headers"] = {"Authorization": openai.Omit()}
        base, query = _split_query(str(api_base))
        self._shape = {
            "api_base": base,
            "query": query,
            "model": model,
            "api_key": key or "no-key",
            "params": params,
            "prices": cost_map_prices(model, provider),
        }
        return self._shape

    def _openai_client(self) -> Any:
        """The next of this event loop's AsyncOpenAI clients (round robin). Each loop (the
        call worker's, each `asyncio.run`) gets OPENAI_CLIENTS_PER_LOOP clients the first
        time it calls, reuses them for every call and aclose() closes them."""
        loop = asyncio.get_running_loop()
        entry = self._clients.get(id(loop))
        if entry is None or entry[0] is not loop:
            entry = (loop, [self._new_openai_client() for _ in range(OPENAI_CLIENTS_PER_LOOP)])
            self._clients[id(loop)] = entry
        clients = entry[1]
        self._turn += 1
        return clients[self._turn % len(clients)]

    def _new_openai_client(self) -> Any:
        import openai

        shape = self._openai_shape()
        # The SDK's own httpx client with no cap on connections: the runner bounds how many
        # calls are in flight (--concurrency), and every connection opened stays open for
        # reuse (the SDK's default keeps at most 100 alive).
        limits_type = type(openai.DEFAULT_CONNECTION_LIMITS)
        http_client = openai.DefaultAsyncHttpxClient(
            limits=limits_type(max_connections=None, max_keepalive_connections=None)
        )
        return openai.AsyncOpenAI(
            base_url=shape["api_base"],
            api_key=shape["api_key"],
            organization=self._args.get("organization"),
            max_retries=0,  # the runner retries, never the SDK
            default_headers=dict(self._headers) or None,
            default_query=shape["query"] or None,  # e.g. ?token=...&sig=... of a signed api_base
            http_client=http_client,
        )

    async def _judge_openai(self, request: JudgeRequest) -> JudgeReply:
        shape = self._shape or self._openai_shape()
        client = self._openai_client()
        started = time.monotonic()
        try:
            response = await client.chat.completions.create(
                model=shape["model"],
                messages=request.messages,
                timeout=self.timeout_s,
                **shape["params"],
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise self._convert_openai_error(exc) from None
        latency = time.monotonic() - started
        try:
            text = response.choices[0].message.content
            usage = response.usage
        except (AttributeError, IndexError, KeyError, TypeError):
            raise JudgeCallError(
                self._scrub(f"malformed response from {shape['api_base']}: {str(response)[:200]!r}"),
                retryable=True,
            ) from None
        tokens_in = getattr(usage, "prompt_tokens", None)
        tokens_out = getattr(usage, "completion_tokens", None)
        cost = None
        prices = shape["prices"]
        if prices is not None and isinstance(tokens_in, int) and isinstance(tokens_out, int):
            cost = tokens_in * prices[0] + tokens_out * prices[1]
        return JudgeReply(
            text=text if isinstance(text, str) else "",
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost_usd=cost,
            latency_s=latency,
        )

    def _convert_openai_error(self, exc: Exception) -> JudgeCallError:
        import openai

        name = type(exc).__name__
        if isinstance(exc, openai.APITimeoutError):
            return JudgeCallError(f"timed out after {self.timeout_s:g}s", retryable=True)
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = _error_detail(exc)
            message = self._scrub(f"{name}: HTTP {status}: {detail}".strip())
            if _is_auth_error(exc, status, message):
                return JudgeCallError(f"authentication failed: {message}", retryable=False)
            if isinstance(exc, (openai.RateLimitError, openai.InternalServerError)) or (
                status in RETRYABLE_STATUS or status >= 500
            ):
                headers = getattr(getattr(exc, "response", None), "headers", None)
                return JudgeCallError(message, retryable=True, retry_after_s=_parse_retry_after(headers))
            request_level = status == 400 and _is_request_level(detail, getattr(exc, "code", None))
            return JudgeCallError(message, retryable=False, fatal=not request_level)
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            reason = f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)
            return JudgeCallError(self._scrub(f"connection error: {reason}"), retryable=True)
        if isinstance(exc, (openai.APIResponseValidationError, json.JSONDecodeError)):
            # a 200 whose body is not a chat completion (a proxy's error page, cut-off JSON)
            return JudgeCallError(self._scrub(f"malformed response: {name}: {exc}"), retryable=True)
        message = self._scrub(f"{name}: {exc}")
        if _is_auth_error(exc, None, message):
            return JudgeCallError(f"authentication failed: {message}", retryable=False)
        return JudgeCallError(message, retryable=False)


def _split_query(url: str) -> tuple[str, dict[str, str]]:
    """(url without its query string, the query as a dict): the SDK appends paths to
    base_url, so a query must travel as default_query to stay a query."""
    from urllib.parse import parse_qsl, urlsplit, urlunsplit

    parts = urlsplit(url)
    if not parts.query:
        return url, {}
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit(parts._replace(query="", fragment="")), query


def _is_auth_error(exc: BaseException, status: Any, message: str) -> bool:
    """401/403, an AuthenticationError/PermissionDeniedError (openai or litellm), or a
    missing-credentials message: permanent, never retried."""
    if status in (401, 403):
        return True
    if any(c.__name__ in AUTH_ERRORS for c in type(exc).__mro__):
        return True
    low = message.lower()
    return any(fragment in low for fragment in AUTH_TEXT)


_SDK_PARAMS: frozenset[str] | None = None
# create() keywords that judgebench sets itself or that are not request-body arguments
_SDK_RESERVED = {"self", "messages", "model", "stream", "stream_options", "timeout"}
_SDK_RESERVED |= {"extra_headers", "extra_query", "extra_body"}


def _sdk_create_params() -> frozenset[str]:
    """Arguments `chat.completions.create` takes by name in the installed openai SDK."""
    global _SDK_PARAMS
    if _SDK_PARAMS is None:
        import inspect

        from openai.resources.chat import AsyncCompletions

        names = inspect.signature(AsyncCompletions.create).parameters
        _SDK_PARAMS = frozenset(n for n in names if n not in _SDK_RESERVED)
    return _SDK_PARAMS


def _error_detail(exc: Any) -> str:
    """The provider's error message from an openai APIStatusError."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message") is not None:
            return str(err["message"])
        if isinstance(err, str):
            return err
    message = getattr(exc, "message", None)
    return str(message if message is not None else exc)


_REQUEST_LEVEL_CODES = {"context_length_exceeded", "content_policy_violation", "content_filter"}
_REQUEST_LEVEL_TEXT = (
    "context length",
    "maximum context",
    "context window",
    "too long",
    "content_policy_violation",
    "content management policy",
    "content policy",
)


def _is_request_level(detail: str, code: Any) -> bool:
    """A 400 about this prompt only (too long for the context window, refused by a
    content policy): that call fails, the run goes on."""
    if isinstance(code, str) and code in _REQUEST_LEVEL_CODES:
        return True
    low = detail.lower()
    return any(fragment in low for fragment in _REQUEST_LEVEL_TEXT)

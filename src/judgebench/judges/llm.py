"""LLM judges: the official openai SDK for OpenAI-compatible endpoints, litellm for every
other provider; one attempt per call (the runner retries).

Arguments (`--judge-args`) are converted by args.py. Secrets (api_key, header values and
any argument named like a key, secret, password, credential or token) are used for the
call only: `cache_identity()` and `public_args()` leave them out, and error messages are
scrubbed of them (`scrub`).

Transports (`transport=auto|openai|litellm`): openai_transport.py (the openai SDK, for
OpenAI-compatible endpoints given by api_base: providers openai, hosted_vllm,
openai_like, custom_openai) and litellm_transport.py (`litellm.acompletion`). auto
(default): openai when the provider is OpenAI-compatible and api_base is set (self-hosted
vLLM, a local server, a proxy), litellm otherwise (hosted APIs, anthropic/, gemini/,
ollama/, ...). Why two: on a 2-core machine `import litellm` takes ~5 s and each
`litellm.acompletion` costs ~8-10 ms of CPU, which caps one process well below what a
local vLLM server at concurrency 64 answers; the SDK call costs ~3-4 ms (docs/guide/running-judges.md).

The public API used by the batch path (calls/batch.py): `split_provider()`,
`request_body(messages)`, `client_args()`, `classify_error(exc)` and `scrub(message)`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from typing import Any

from judgebench.core.errors import JudgebenchError
from judgebench.core.records import JudgeReply, JudgeRequest
from judgebench.core.secrets import (
    hidden_values,
    holds_credential,
    install_log_redaction,
    redact_url,
    redact_value,
    run_secrets,
    scrub_message,
)
from judgebench.judges.args import (
    CONNECTION_ARGS,
    body_args,
    convert_judge_args,
    is_secret_arg,
    split_provider,
)
from judgebench.judges.base import Judge, JudgeCallError
from judgebench.judges.config import PRICE_ARGS, price_per_mtok
from judgebench.judges.litellm_transport import (
    call_litellm,
    check_credentials,
    classify_litellm_error,
)
from judgebench.judges.openai_transport import OpenAITransport, make_shape
from judgebench.judges.prices import price
from judgebench.judges.providers import check_provider, environment_key, import_litellm

OPENAI_COMPATIBLE = {"openai", "hosted_vllm", "openai_like", "custom_openai"}
# Self-hosted providers have no address of their own: api_base, or the environment variable litellm reads for it
SELF_HOSTED_BASE_ENV = {"hosted_vllm": "HOSTED_VLLM_API_BASE", "openai_like": "OPENAI_LIKE_API_BASE",
                        "custom_openai": None}
# Providers with no default address, and the variable litellm reads it from: without either, every call fails.
ADDRESS_ENV = {**SELF_HOSTED_BASE_ENV, "azure": "AZURE_API_BASE"}
TRANSPORTS = ("auto", "litellm", "openai")


# The variables litellm reads a provider's address from, where they are not PROVIDER_API_BASE (litellm 1.110's)
BASE_VARIABLES = {"openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
                  "text-completion-openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
                  "ollama": ("OLLAMA_API_BASE",), "ollama_chat": ("OLLAMA_API_BASE",),
                  "anthropic": ("ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL"),
                  "fireworks_ai": ("FIREWORKS_API_BASE",), "huggingface": ("HF_API_BASE", "HUGGINGFACE_API_BASE"),
                  "vertex_ai": ("VERTEXAI_API_BASE", "VERTEX_AI_API_BASE"), "vertex_ai_beta": ("GEMINI_API_BASE",),
                  "gemini": ("GEMINI_API_BASE",), "bedrock": ("AWS_BEDROCK_RUNTIME_ENDPOINT", "BEDROCK_API_BASE")}


def environment_base(provider: str) -> str | None:
    """The address litellm sends `provider`'s calls to when no api_base is given: a Python caller's module-wide
    `litellm.api_base`, else the provider's environment variable(s) as litellm reads them (BASE_VARIABLES, else
    PROVIDER_API_BASE, then PROVIDER_BASE_URL). None: the provider's default address."""
    module_wide = getattr(sys.modules.get("litellm"), "api_base", None)
    if module_wide:
        return str(module_wide)
    prefix = re.sub(r"[^A-Z0-9]", "_", provider.upper())
    names = BASE_VARIABLES.get(provider, (f"{prefix}_API_BASE", f"{prefix}_BASE_URL"))
    return next((os.environ[name].strip() for name in names if os.environ.get(name, "").strip()), None)


class LiteLLMJudge(Judge):
    """A judge model reached through the openai SDK or litellm (see the module docstring)."""

    cacheable = True
    needs_texts = False  # the call sends request.messages (the rendered prompt) only

    def __init__(self, model: str, judge_args: dict[str, Any] | None = None):
        if holds_credential(model):  # (a key pasted as the id reached results.json, the samples, the cache and stdout)
            raise JudgebenchError("--judge: the judge id holds what looks like an API key (not shown); give the key "
                                  "in its environment variable or as --judge-args api_key=...")
        self.id = model
        self.model = model
        args, headers = convert_judge_args(dict(judge_args or {}))
        self.transport = str(args.pop("transport", "auto"))
        if self.transport not in TRANSPORTS:
            raise JudgebenchError(
                f"--judge-args transport={self.transport!r}: expected one of {', '.join(TRANSPORTS)}"
            )
        self._api_key: str | None = args.pop("api_key", None)
        fingerprint = args.pop("endpoint_fingerprint", None)
        self._fingerprint_given = None if fingerprint in (None, "") else str(fingerprint)
        # a name shown in every table: a URL's secrets in it redacted, a credential-shaped one hidden
        self.endpoint_fingerprint: str | None = redact_value(self._fingerprint_given)
        self.price_override = _price_override(args)  # USD per token (in, out), or None: the cost map's
        self._secrets = {k: v for k, v in args.items() if is_secret_arg(k)}
        self._args = {k: v for k, v in args.items() if not is_secret_arg(k)}
        self._headers = headers
        self.timeout_s: float = 120.0  # set by the runner (--timeout)
        self._openai: OpenAITransport | None = None  # made on first use (openai transport)
        self._environment_base = None if self._args.get("api_base") or self.uses_openai_transport() else \
            environment_base(self.split_provider()[0])  # where litellm will send the calls: read once, as made
        install_log_redaction()  # httpx logs request URLs (a signed api_base's query) at INFO
        if not self.uses_openai_transport():  # litellm routes by the provider: a typo is refused before any call
            check_provider(model, self._args.get("custom_llm_provider"), self._args.get("api_base"))

    def __repr__(self) -> str:
        return f"LiteLLMJudge({self.model!r}, {self.public_args()!r})"

    # -- identity and reporting (no secrets)
    def cache_identity(self) -> dict[str, Any]:
        """Model id, every generation argument, the endpoint and the header values (hashed).

        The endpoint: the `endpoint_fingerprint` argument when given (a name you choose for a server,
        kept when it moves), else api_base (secrets redacted, trailing / dropped) with api_version and
        organization. A judge on the provider's default endpoint with no headers keeps the identity it
        always had ({judge, args, header_names}), so caches written before the endpoint was in the key
        stay valid for it. Header values enter as one sha256, never in clear; API keys never."""
        args = {k: v for k, v in sorted(self._args.items()) if k not in CONNECTION_ARGS}
        identity: dict[str, Any] = {
            "judge": self.model,
            "args": redact_value(args),  # URL userinfo and query values never reach the cache
            "header_names": sorted(h.lower() for h in self._headers),
        }
        endpoint = self.endpoint()
        if endpoint is not None:
            identity["endpoint"] = endpoint
        hidden = self.endpoint_secrets_hash()
        if hidden is not None:
            identity["endpoint_secrets_sha256"] = hidden
        if self._fingerprint_given is not None and self._fingerprint_given != self.endpoint_fingerprint:
            # its shown form hides a part: two fingerprints told apart only there are two endpoints (`sk-team-a`
            # and `sk-team-b` both read <redacted>, and shared their answers)
            identity["endpoint_fingerprint_sha256"] = hashlib.sha256(self._fingerprint_given.encode("utf-8")).hexdigest()
        if self._headers:
            identity["header_values_sha256"] = self.header_values_hash()
        return identity

    def endpoint(self) -> str | None:
        """Where the model is served, as the cache and the configuration know it (no secrets); None:
        the provider's default endpoint."""
        if self.endpoint_fingerprint is not None:
            return f"fingerprint:{self.endpoint_fingerprint}"
        parts = [self.served_endpoint() or ""]
        parts += [f"{name}={self._args[name]}" for name in ("api_version", "organization") if self._args.get(name)]
        return " ".join(filter(None, parts)) or None

    def served_endpoint(self) -> str | None:
        """The address this judge calls (secrets redacted), whatever its fingerprint; None: the default."""
        base = self._base()
        return redact_url(base) if base else None

    def _base(self) -> str | None:
        """The address the calls go to, secrets included: api_base, else the one litellm reads when none is given
        (`environment_base`: two servers named by an environment variable had shared one cache)."""
        base = self._args.get("api_base") or self._environment_base
        return str(base).strip().rstrip("/") if base else None

    def endpoint_secrets_hash(self) -> str | None:
        """sha256 of the address when its shown form hides parts of it (userinfo, a query value, a key-like path
        segment: `redact_url`), so two servers told apart only there are two endpoints; None when nothing is hidden
        or an endpoint_fingerprint names the server."""
        base = self._base()
        if self.endpoint_fingerprint is not None or base is None or redact_url(base) == base:
            return None
        return hashlib.sha256(base.encode("utf-8")).hexdigest()

    def header_values_hash(self) -> str:
        """sha256 of the extra headers (names lowered, sorted) with their values: never stored in clear."""
        blob = json.dumps(sorted((k.lower(), v) for k, v in self._headers.items()), separators=(",", ":"))
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def public_args(self) -> dict[str, Any]:
        """Arguments safe to write to results: secrets removed, header values redacted, and
        the userinfo and query-string values of every URL replaced by *** (redact_url)."""
        out: dict[str, Any] = redact_value(dict(self._args))
        if "api_base" not in out and self.served_endpoint() is not None:
            out["api_base"] = self.served_endpoint()  # read from the environment: where the calls went
        if self._headers:
            out["extra_headers"] = {name: "<redacted>" for name in sorted(self._headers)}
        if self.transport != "auto":
            out["transport"] = self.transport
        if self.endpoint_fingerprint is not None:
            out["endpoint_fingerprint"] = self.endpoint_fingerprint
        if self.price_override is not None:
            out[PRICE_ARGS[0]], out[PRICE_ARGS[1]] = (round(p * 1e6, 9) for p in self.price_override)
        return out

    def _secret_values(self) -> list[str]:
        values = [self._api_key] if self._api_key else []
        values += hidden_values(self._secrets) + [v for v in self._headers.values() if v]
        values += hidden_values([self._args, self._environment_base, self._fingerprint_given])
        return sorted({v for v in values if len(v) >= 4}, key=len, reverse=True)

    def secret_values(self) -> list[str]:
        return self._secret_values()

    def scrub(self, message: str) -> str:
        """The message without any secret: URL userinfo/query values, keys, header values, each also in the forms
        a provider may echo it (URL-quoted, base64: a `user:password` userinfo is sent as HTTP Basic)."""
        return scrub_message(message, run_secrets(self._secret_values()))

    # -- the public API of the batch path
    def split_provider(self) -> tuple[str, str]:
        """(provider, model name) from `provider/model` or custom_llm_provider."""
        return split_provider(self.model, self._args)

    def request_body(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """An OpenAI chat completions body: model name, messages and the body arguments."""
        return {"model": self.split_provider()[1], "messages": messages, **body_args({**self._args, **self._secrets})}

    def client_args(self) -> dict[str, Any]:
        """Connection arguments for litellm's files/batches calls, secrets included (for the
        call only): provider, api_base/api_version/organization, api key, headers."""
        provider = self.split_provider()[0]
        kwargs: dict[str, Any] = {"custom_llm_provider": provider}
        for name in CONNECTION_ARGS:
            if self._args.get(name):
                kwargs[name] = self._args[name]
        key = self._api_key or environment_key(provider)[1]
        if key:
            kwargs["api_key"] = key
        elif provider == "openai" and self._args.get("api_base"):
            kwargs["api_key"] = "no-key"  # a keyless OpenAI-compatible server
        if self._headers:
            kwargs["extra_headers"] = dict(self._headers)
        return kwargs

    def classify_error(self, exc: Exception) -> JudgeCallError:
        """A litellm exception (litellm transport, batch API) as a JudgeCallError."""
        return classify_litellm_error(exc, self.scrub, self.timeout_s)

    # -- before the run
    def preflight(self) -> None:
        """A self-hosted endpoint needs its address (api_base); a hosted provider (no api_base) without an
        api_key argument needs its credential environment variable(s): raise JudgebenchError naming what is
        missing."""
        provider, _ = self.split_provider()
        self._check_key_text(provider)
        if not self._args.get("api_base"):
            self._check_address(provider)
        elif "?" in str(self._args["api_base"]) and not self.uses_openai_transport():
            raise JudgebenchError(
                f"judge {self.model}: api_base {redact_url(str(self._args['api_base']))} has a query string, which the "
                "litellm transport puts before the path it adds (every call failed: 404); for an OpenAI-compatible "
                "server give transport=openai, which sends it as the query, else leave it out")
        if self._args.get("api_base") or self._api_key or self._secrets:
            return  # self-hosted endpoints need no key; explicit credentials are trusted
        if self.transport == "openai" or provider in SELF_HOSTED_BASE_ENV:
            return
        check_credentials(self.model)

    def _check_key_text(self, provider: str) -> None:
        """The key sent in a header is plain ASCII without control characters or spaces at its ends (a key pasted
        with its line feed failed every attempt as a connection error, 6 tries over 40 s, and was echoed). The key
        is never shown."""
        if self._api_key:
            where, key = "--judge-args api_key", self._api_key
        elif self._secrets:  # another credential given (an AD token, a key of another name): the call sends that
            return
        else:  # the variable the provider's calls send (azure's first: a stale AZURE_API_KEY beside a good
            # AZURE_OPENAI_API_KEY refused a working setup)
            where, key = environment_key(provider)
        if not key or not key.strip():
            return  # (a blank one is check_credentials' to word)
        if key != key.strip() or not key.isascii() or any(ord(c) < 32 or ord(c) == 127 for c in key):
            raise JudgebenchError(f"judge {self.model}: the key in {where} has a space or line break at an end, a "
                                  "control character or a non-ASCII character (not shown); an HTTP header cannot carry it")

    def _check_address(self, provider: str) -> None:
        """Without api_base, transport=openai and a self-hosted provider have nowhere to send a call (litellm would
        try api.openai.com for hosted_vllm, retried until the run gave up)."""
        if self.transport == "openai":
            raise JudgebenchError(f"judge {self.model}: transport=openai needs the endpoint's address: "
                                  "--judge-args api_base=http://HOST:PORT/v1")
        if provider in ADDRESS_ENV:
            env = ADDRESS_ENV[provider]
            if (env and os.environ.get(env, "").strip()) or getattr(sys.modules.get("litellm"), "api_base", None):
                return  # litellm's variable, or its module-wide api_base a Python caller set
            kind = "a self-hosted endpoint" if provider in SELF_HOSTED_BASE_ENV else "the provider"
            example = "https://NAME.openai.azure.com" if provider == "azure" else "http://HOST:PORT/v1"
            raise JudgebenchError(f"judge {self.model}: {kind} ({provider}) has no default address: "
                                  f"--judge-args api_base={example}" + (f" (or set {env})" if env else ""))

    async def warm_up(self) -> None:
        """Import the transport and make this loop's clients before the first timed call."""
        if self.uses_openai_transport():
            self._openai_transport().client()
        else:
            import_litellm()

    # -- the call
    def uses_openai_transport(self) -> bool:
        if self.transport == "litellm":
            return False
        if self.transport == "openai":
            return True
        return bool(self._args.get("api_base")) and self.split_provider()[0] in OPENAI_COMPATIBLE

    def _openai_transport(self) -> OpenAITransport:
        if self._openai is None:
            provider, model = self.split_provider()
            api_base = self._args.get("api_base")
            if not api_base:
                raise JudgeCallError(f"judge {self.model}: transport=openai needs api_base", retryable=False)
            shape = make_shape(
                provider,
                model,
                str(api_base),
                body_args({**self._args, **self._secrets}),  # secret-named arguments are sent, as on litellm's
                api_key=self._api_key,
                organization=self._args.get("organization"),
                headers=self._headers,
                prices=self.price_override,
            )
            self._openai = OpenAITransport(shape, self.scrub)
        return self._openai

    @property
    def _clients(self) -> dict[int, tuple[Any, list[Any]]]:
        """id(loop) -> (loop, AsyncOpenAI clients) of the openai transport."""
        return self._openai.clients if self._openai is not None else {}

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        if self.uses_openai_transport():
            return await self._openai_transport().call(request, self.timeout_s)
        kwargs: dict[str, Any] = {**self._args, **self._secrets}
        if self._api_key:
            kwargs["api_key"] = self._api_key
        if self._headers:
            kwargs["extra_headers"] = dict(self._headers)
        reply = await call_litellm(self.model, request.messages, kwargs, self.timeout_s, self.classify_error)
        return self.repriced(reply)  # your price, not litellm's (or its None for a self-hosted model)

    def repriced(self, reply: JudgeReply) -> JudgeReply:
        """`reply` at this judge's own price when it has one (price_override): answers from either transport, the
        batch API or the cache, priced when they were answered, cost what the configuration says now."""
        if self.price_override is None or reply.text is None:
            return reply
        return reply.model_copy(update={"cost_usd": price(self.price_override, reply.tokens_in, reply.tokens_out)})

    async def aclose(self) -> None:
        """Close the openai SDK clients (called by the runner when a run ends)."""
        if self._openai is not None:
            await self._openai.aclose()


def _price_override(args: dict[str, Any]) -> tuple[float, float] | None:
    """input_cost_per_mtok / output_cost_per_mtok (USD per million tokens, both or neither) popped from
    the arguments, as USD per token."""
    given = {name: args.pop(name) for name in PRICE_ARGS if name in args}
    if not given:
        return None
    if len(given) != 2:
        raise JudgebenchError(f"--judge-args: give both {PRICE_ARGS[0]} and {PRICE_ARGS[1]} (USD per million tokens)")
    prices = [price_per_mtok(given[name], f"--judge-args {name}={given[name]!r}") / 1e6 for name in PRICE_ARGS]
    return prices[0], prices[1]

"""Before any call: the provider of a litellm model id is one litellm knows, and api_base is a URL.

    check_provider("opnai/gpt-4o", forced=None, api_base=None)
    -> JudgebenchError: --judge opnai/gpt-4o: unknown litellm provider 'opnai' (did you mean openai/gpt-4o?) ...

Without these checks a typo reached the first call: every call failed ("LLM Provider NOT provided"), and an
api_base that is not a URL failed each call with a ValueError or was retried (issue 27).

litellm's providers are read from its own files, without importing it (~5 s on a 2-core machine): the
`LlmProviders` enum of litellm/types/utils.py (litellm.provider_list is built from it) and the providers
configured in litellm/llms/openai_like/providers.json. A provider found there is accepted at once (the fast
path, every valid id). One not found there is asked of litellm itself (`litellm.get_llm_provider`, which
also resolves some ids by model name or api_base): refused only when litellm cannot resolve it either, so
an id litellm accepts is never refused here.

Also the provider facts the transports share: `import_litellm` (quiet, offline cost map) and the environment
variables a provider's key is read from (`key_variables`, `environment_key`).
"""

from __future__ import annotations

import difflib
import importlib.util
import json
import os
import re
import warnings
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from judgebench.core.errors import JudgebenchError
from judgebench.core.names import BUILTIN_PREFIX, PANEL_PREFIX, REPLAY_PREFIX
from judgebench.core.secrets import redact_url, userinfo_needs_encoding

OWN_PREFIXES = (BUILTIN_PREFIX, REPLAY_PREFIX, PANEL_PREFIX)  # judgebench's own judges, not litellm providers
PROVIDERS_DOC = "https://docs.litellm.ai/docs/providers"
_ENUM = re.compile(r"^class LlmProviders\(str, Enum\):\n(?P<body>(?:[ \t]+\S.*\n|[ \t]*\n)+)", re.MULTILINE)
_MEMBER = re.compile(r'^[ \t]+[A-Z][A-Z0-9_]*[ \t]*=[ \t]*"([^"]+)"', re.MULTILINE)


def import_litellm() -> Any:
    """litellm, quiet and with its bundled cost map (never fetched from the network)."""
    # Offline machines: litellm would otherwise try (and retry) fetching the remote cost
    # map at import. The cost map bundled with the installed litellm is the reproducible one.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.set_verbose = False
    litellm.turn_off_message_logging = True
    # pydantic's serializer warnings quote the provider's reply (an attack: a key a server echoed reached the
    # terminal through them, unscrubbed); what the reply holds is recorded, scrubbed, with the call
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)
    # a batch or file call cancelled by a stop (SIGINT, SIGTERM) while litellm's sync half ran in a thread leaves the
    # coroutine that half returned unawaited: its request was never sent, yet Python warned of it on the stop line
    warnings.filterwarnings("ignore", message=r"coroutine '\w+(?:Batches|Files)API\.a\w+' was never awaited",
                            category=RuntimeWarning)
    return litellm


def key_variables(provider: str) -> tuple[str, ...]:
    """The environment variables a provider's calls take their key from, the first set one first: azure reads
    AZURE_OPENAI_API_KEY before AZURE_API_KEY; every other provider <PROVIDER>_API_KEY."""
    return ("AZURE_OPENAI_API_KEY", "AZURE_API_KEY") if provider == "azure" else (f"{provider.upper()}_API_KEY",)


def environment_key(provider: str) -> tuple[str, str | None]:
    """(the variable a provider's key is read from, its value or None): the first set of `key_variables`, else the
    first of them."""
    names = key_variables(provider)
    where = next((name for name in names if os.environ.get(name)), names[0])
    return where, os.environ.get(where)


@cache
def known_providers() -> frozenset[str]:
    """litellm's provider names read from its files (module docstring); empty when litellm is not installed
    or its files are not where this reading expects them (then every provider is asked of litellm)."""
    spec = importlib.util.find_spec("litellm")  # finds the package folder, imports nothing
    names: set[str] = set()
    for folder in (spec.submodule_search_locations or []) if spec else []:
        root = Path(folder)
        try:
            found = _ENUM.search((root / "types" / "utils.py").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            found = None
        if found:
            names.update(_MEMBER.findall(found.group("body")))
        try:
            configured = json.loads((root / "llms" / "openai_like" / "providers.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            configured = {}
        if isinstance(configured, dict):
            names.update(str(name) for name in configured)
    return frozenset(names)


def check_provider(model: str, forced: str | None = None, api_base: str | None = None) -> None:
    """Refuse (JudgebenchError, one line naming the flag) a model id whose provider litellm does not know.
    `forced`: the custom_llm_provider argument, which then names the provider."""
    provider = str(forced) if forced else model.partition("/")[0]
    if not forced and f"{provider.lower()}/" in OWN_PREFIXES and provider != provider.lower():  # (before litellm: 6 s)
        raise JudgebenchError(f"--judge {model}: judgebench's own judges are written in lower case: did you mean "
                              f"{provider.lower()}/{model.partition('/')[2]}?")
    if provider in known_providers() or _litellm_resolves(model, forced, api_base):
        return
    close = difflib.get_close_matches(provider.lower(), sorted(known_providers()), n=1, cutoff=0.6)
    if forced:
        hint = f" (did you mean {close[0]}?)" if close else ""
        where = f"--judge-args custom_llm_provider={forced}"
    else:
        hint = f" (did you mean {close[0]}/{model.partition('/')[2]}?)" if close else ""
        where = f"--judge {model}"
    raise JudgebenchError(
        f"{where}: unknown litellm provider {provider!r}{hint}; a model id is PROVIDER/MODEL, "
        f"e.g. openai/gpt-4.1 (providers: {PROVIDERS_DOC}){'' if forced else folder_note(model)}"
    )


def folder_note(value: str) -> str:
    """For an error about a judge id that names an existing folder: that the folder holds no configuration (an empty
    `--judge jf/empty` read as a model id was told only that its provider 'jf' is unknown)."""
    try:
        found = bool(value.strip()) and Path(value).is_dir()
    except OSError:
        found = False
    return f" ({value} is also a folder, with no .yaml judge configuration in it)" if found else ""


def _litellm_resolves(model: str, forced: str | None, api_base: str | None) -> bool:
    """Whether litellm routes this id (True when litellm cannot be imported: the call says why). A forced
    provider must be one of litellm's (`get_llm_provider` passes any through; the call then fails)."""
    try:
        litellm = import_litellm()
    except ImportError:
        return True
    if forced:
        listed = {str(getattr(p, "value", p)) for p in litellm.provider_list}
        registered = {str(item.get("provider")) for item in getattr(litellm, "custom_provider_map", None) or []}
        return str(forced) in listed | registered
    try:
        litellm.get_llm_provider(model=model, api_base=api_base or None)
    except Exception:  # noqa: BLE001 - litellm's BadRequestError "LLM Provider NOT provided", or any other refusal
        return False
    return True


def check_api_base(value: Any) -> None:
    """Refuse (JudgebenchError, one line) an api_base that is not a well-formed http(s) URL with a host and a
    port in range; the value is shown with its userinfo and query values redacted."""
    shown = redact_url(str(value))
    expected = "expected an http(s) URL such as http://127.0.0.1:8000/v1"
    if not isinstance(value, str):
        raise JudgebenchError(f"--judge-args api_base={shown!r}: {expected}")
    text = value.strip()
    if any(ch.isspace() or not ch.isprintable() for ch in text):
        raise JudgebenchError(f"--judge-args api_base={shown!r}: a URL has no spaces or control characters; {expected}")
    if userinfo_needs_encoding(text):  # (`https://u:pa/ss@host` was read as host `u`, port `pa`, and the port shown)
        raise JudgebenchError(f"--judge-args api_base={shown!r}: its user or password holds a raw / ? or #; "
                              "percent-encode them (%2F %3F %23)")
    try:
        parts = urlsplit(text)
    except ValueError as exc:  # an unclosed [IPv6 address
        raise JudgebenchError(f"--judge-args api_base={shown!r}: not a well-formed URL ({exc}); {expected}") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise JudgebenchError(f"--judge-args api_base={shown!r}: {expected}")
    try:
        port = parts.port  # ValueError when above 65535 or not a number
    except ValueError:
        port = -1
    if port is not None and not 1 <= port <= 65535:
        given = parts.netloc.rpartition(":")[2]  # after any userinfo: the port as written
        raise JudgebenchError(f"--judge-args api_base={shown!r}: port {given} is not a number from 1 to 65535")

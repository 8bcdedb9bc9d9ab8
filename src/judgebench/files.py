"""Atomic file writes and JSONL reading/writing shared by every output."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import JudgebenchError

M = TypeVar("M", bound=BaseModel)


def write_atomic(path: Path, text: str) -> None:
    """Write text to path via a temp file in the same folder and an atomic rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def write_models_jsonl(path: Path, models: Iterable[BaseModel]) -> None:
    write_atomic(path, "".join(m.model_dump_json() + "\n" for m in models))


def read_models_jsonl(path: Path, model: type[M]) -> list[M]:
    """Read a JSONL of pydantic models; a bad line is an error naming file, line and field."""
    rows: list[M] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise JudgebenchError(f"{path}: cannot read ({exc.strerror})") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append(model.model_validate_json(line))
        except ValidationError as exc:
            raise JudgebenchError(f"{path}:{number}: {describe_validation_error(exc)}") from None
    return rows


def read_model_json(path: Path, model: type[M]) -> M:
    try:
        return model.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise JudgebenchError(f"{path}: cannot read ({exc.strerror})") from None
    except ValidationError as exc:
        raise JudgebenchError(f"{path}: {describe_validation_error(exc)}") from None


def describe_validation_error(exc: ValidationError) -> str:
    """The first pydantic error as 'field.path: message' on one line."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "(root)"
    extra = f" ({exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"field '{where}': {first.get('msg', 'invalid')}{extra}"

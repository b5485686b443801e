"""Threshold lists for ``neardup evaluate --thresholds``."""

from __future__ import annotations

import math

from neardup.errors import ParameterError

_MAX_STEPS = 1000
_NAME = "--thresholds"


def parse_thresholds(text: str) -> tuple[float, ...]:
    """Parse ``START:STOP:STEP`` (both ends inclusive) or a comma list into thresholds.

    Examples: ``0.5:1.0:0.1`` -> (0.5, 0.6, 0.7, 0.8, 0.9, 1.0); ``0.2,0.3,0.95``;
    ``0.5`` -> (0.5,). Values are rounded to 6 decimals, sorted and de-duplicated.

    Args:
        text: the option's value.

    Returns:
        Sorted distinct thresholds, each in (0, 1].

    Raises:
        ParameterError: malformed text, a value outside (0, 1], ``STEP <= 0``,
            ``START > STOP`` or more than 1000 values (a :class:`UsageError`: exit code 2).
    """
    text = text.strip()
    if not text:
        raise ParameterError(_NAME, text, "START:STOP:STEP or a comma list of numbers")
    values = _range(text) if ":" in text else [_number(v) for v in text.split(",")]
    out = tuple(sorted({round(v, 6) for v in values}))
    for v in out:
        if not 0.0 < v <= 1.0:
            raise ParameterError(_NAME, text, f"thresholds in (0, 1]; {v} is not")
    return out


def _range(text: str) -> list[float]:
    parts = text.split(":")
    if len(parts) != 3:
        raise ParameterError(_NAME, text, "START:STOP:STEP, e.g. 0.5:1.0:0.1")
    start, stop, step = (_number(p) for p in parts)
    if step <= 0:
        raise ParameterError(_NAME, text, "STEP > 0")
    if start > stop:
        raise ParameterError(_NAME, text, "START <= STOP")
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count > _MAX_STEPS:
        raise ParameterError(_NAME, text, f"at most {_MAX_STEPS} thresholds")
    return [start + i * step for i in range(count)]


def _number(raw: str) -> float:
    try:
        value = float(raw.strip())
    except ValueError:
        raise ParameterError(_NAME, raw, "numbers such as 0.5") from None
    if not math.isfinite(value):
        raise ParameterError(_NAME, raw, "finite numbers")
    return value

"""Strict JSON for saved functions: UTF-8, no NaN/Infinity literals, no duplicate keys
(a later duplicate would silently win), a top-level object; every failure a LoadError."""
from __future__ import annotations

import json

from runtime.saved.format import LoadError


def _reject_constant(name):
    raise LoadError(f"{name} is not valid JSON")


def _unique_keys(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise LoadError(f"the key {k[:40]!r} appears twice in one object")
            seen.add(k)
    return obj


def parse_json(data: bytes, where: str) -> dict:
    """`data` as a JSON object; LoadError naming `where` if it is anything else.

    Duplicate keys are ruled out by counting: every key of the text is followed by its
    own `:` byte, so the text has at most `data.count(b":")` keys, and each duplicate
    leaves the parsed objects one key short of the text's. When the parsed objects hold
    exactly as many keys as there are colons, no key was repeated; otherwise (a colon
    inside a string, or a duplicate) the text is parsed again pair by pair, which finds
    the duplicate if there is one. Counting costs a fifth of that second parse."""
    keys = 0

    def count(obj: dict) -> dict:
        nonlocal keys
        keys += len(obj)
        return obj

    try:
        text = data.decode("utf-8")
        value = json.loads(text, parse_constant=_reject_constant, object_hook=count)
        if keys != data.count(b":"):
            value = json.loads(text, parse_constant=_reject_constant,
                               object_pairs_hook=_unique_keys)
    except LoadError as e:
        raise LoadError(f"{where}: {e}") from None
    except RecursionError:
        raise LoadError(f"{where}: nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise LoadError(f"{where}: not valid JSON ({e})") from None
    if type(value) is not dict:
        raise LoadError(f"{where}: the top level must be a JSON object")
    return value

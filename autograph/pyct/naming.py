"""Fresh, readable names for generated variables and functions.

A `Namer` knows every identifier of the function being converted and hands out the
first free one of `base`, `base_1`, `base_2`, ... so generated code never clashes with
user names (`break_`, `retval_`, `if_true`, `loop_body`, ...).
"""
from __future__ import annotations

import re

IDENTIFIER = re.compile(r"[A-Za-z_]\w*")  # what may be a Python identifier in source text


class Namer:
    def __init__(self, used: set):
        self.used = set(used)

    def new(self, base: str) -> str:
        name, k = base, 0
        while name in self.used:
            k += 1
            name = f"{base}_{k}"
        self.used.add(name)
        return name

    def scoped(self, base: str, taken: set) -> str:
        """A name for a generated function: free of user names and of `taken` (the names
        of the generated functions enclosing it), but reusable by its siblings."""
        name, k = base, 0
        while name in taken or (name in self.used and name not in self.generated):
            k += 1
            name = f"{base}_{k}"
        self.generated.add(name)
        self.used.add(name)
        return name

    @property
    def generated(self) -> set:
        gen = self.__dict__.get("_generated")
        if gen is None:
            gen = self.__dict__["_generated"] = set()
        return gen

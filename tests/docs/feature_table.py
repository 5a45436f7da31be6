"""The README's comparison table, rendered from its one data file, docs/features.toml.

    python -m tests.docs.feature_table --write    # rewrite the README section

The section sits between the START and END markers in README.md; each row of ours cites
the tests that show it (tests/docs/test_feature_table.py checks they exist).
"""
from __future__ import annotations

import os
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "docs", "features.toml")
README = os.path.join(ROOT, "README.md")
START = "<!-- feature-table: generated from docs/features.toml by tests/docs/feature_table.py -->"
END = "<!-- feature-table: end -->"
PEERS = (("tf", "tf.function"), ("jax", "jax.jit"), ("torch", "torch.compile"))


def rows(path: str = DATA) -> list[dict]:
    with open(path, "rb") as f:
        return tomllib.load(f)["row"]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _cited(test: str) -> str:
    path, _, name = test.partition("::")
    return f"`{os.path.basename(path)}::{name}`"


def render(data: list[dict]) -> str:
    """The Markdown table: a row per feature, the tests that show ours in their own column."""
    head = ["", "autograph-numpy", "shown by"] + [title for _, title in PEERS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in data:
        cells = [row["feature"], row["ours"], ", ".join(_cited(t) for t in row["tests"])]
        cells += [row[key] for key, _ in PEERS]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def section(readme_text: str) -> tuple[int, int]:
    """(start, end) offsets of the generated table inside the README text."""
    start = readme_text.index(START) + len(START)
    return start, readme_text.index(END, start)


def updated_readme(readme_text: str, data: list[dict]) -> str:
    start, end = section(readme_text)
    return readme_text[:start] + "\n" + render(data) + "\n" + readme_text[end:]


def main(argv: list[str]) -> int:
    with open(README, encoding="utf-8") as f:
        text = f.read()
    new = updated_readme(text, rows())
    if "--write" in argv:
        with open(README, "w", encoding="utf-8") as f:
            f.write(new)
        return 0
    print(render(rows()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

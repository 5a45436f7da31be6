"""Fixtures of the command-line tests."""
from __future__ import annotations

import pytest


@pytest.fixture
def write(tmp_path):
    """write(name, text) -> path of a new file in tmp_path."""
    def _write(name: str, text: str):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path
    return _write

"""Saved functions: graphs written to disk and loaded back without their Python code.

    save(fn_or_cf, "f.agz")      # or a directory
    f = load("f.agz")            # a callable with the saved signatures, .graph, .variables

Files: format.py (version, limits, value encoding, LoadError), container.py (the .agz /
directory and its bounded .npz reader), optable.py (the fixed op table and attribute
schemas), save.py, decode.py (graphs back, checked), load.py (the LoadedFunction).
The format is documented in docs/saved_format.md.

Layer: top, beside `jit` and `onnx_export`. It may import every layer up to `frontend`
(the op table names ops of `ops`, `state`, `control_flow` and `autodiff`), never its
two neighbours.
"""
from runtime.saved.format import FORMAT, VERSION, LoadError, SaveError
from runtime.saved.load import LoadedFunction, load
from runtime.saved.save import save

__all__ = ["save", "load", "LoadedFunction", "LoadError", "SaveError", "FORMAT", "VERSION"]

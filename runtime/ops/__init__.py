"""The op set: one `OpDef` record per op (registry.py) and the NumPy entry points that
bind them — ufuncs (ufuncs.py), NumPy functions (functions.py), indexing (indexing.py)
and run-time shapes (shape.py)."""

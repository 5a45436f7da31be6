"""The op set: one `OpDef` record per op (registry.py) and the NumPy entry points that
bind them — ufuncs (ufuncs.py), NumPy functions (functions.py), indexing (indexing.py)
and run-time shapes (shape.py). Each op's explicit shape/dtype rule sits next to it in
the sibling `<module>_rules.py` (functions has two: functions_rules.py and
functions_shape_rules.py), built from rules_common.py; no rule runs a kernel."""

"""Graph optimization passes, one per module, each `Graph -> changed?` with a before/after
example in its docstring; pipeline.py runs them to a fixpoint in a commented order."""

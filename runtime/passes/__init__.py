"""Graph optimization passes, one per module, each `Graph -> changed?` with a before/after
example in its docstring; pipeline.py runs them to a fixpoint in a commented order.
`memory_order.py` answers a question both a pass and the executor ask: whether a graph
reads values in memory order (then arrays' layouts must stay as they are).

May import core/, ops/, state/, control_flow/ and autodiff/ (and this folder); never
exec/ or anything above it.
"""

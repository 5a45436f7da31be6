"""Python code tools for the compiler: parsing with origin info, templates, naming and
static analysis (activity, reaching definitions, liveness)."""

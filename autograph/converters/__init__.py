"""One module per construct; `autograph.impl.conversion` runs them in order."""

# tests/dpa/flexio: filled in by its own change.

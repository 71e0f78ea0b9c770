# tests/dpa/programs: filled in by its own change.

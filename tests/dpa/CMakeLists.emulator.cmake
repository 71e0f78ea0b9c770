# tests/dpa/emulator: filled in by its own change.

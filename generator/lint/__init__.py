"""Stage 3: lint one document (pure) and many files (I/O, cache, workers, selection)."""

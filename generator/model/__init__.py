"""Stage 2: the typed, frozen model of a state document and the names derived from it."""

"""Writing into output folders: one plan/apply layer, atomic only-if-changed file writes."""

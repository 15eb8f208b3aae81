"""statedoc inside other tools: the hatchling build hook."""

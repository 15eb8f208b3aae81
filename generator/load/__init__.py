"""Stage 1: bytes -> text -> front matter and body, strict YAML with spans, the JSON Schema."""

"""Orchestration: one workspace per project, the pipeline every command runs (lint, generate,
check), the process pool, interrupts and progress. Above every stage it drives."""

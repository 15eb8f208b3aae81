"""statedoc: lint state documents, generate their state machines, keep diagrams in sync.

The package reads as a pipeline: ``load`` -> ``model`` -> ``rules`` -> ``render`` ->
``write`` -> ``report``; ``cli`` is the thin shell around it.
"""

__version__ = "0.1.0"

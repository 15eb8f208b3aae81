"""statedoc: lint state documents, generate their state machines, keep diagrams in sync.

The package reads as a pipeline: ``load`` -> ``model`` -> ``lint``/``rules`` -> ``diagram`` ->
``targets`` -> ``output`` -> ``report``; ``cli`` is the thin shell around it, ``diffing``
compares spec versions, ``integrations`` hosts the build hook and ``testing`` the proofs.
"""

__version__ = "0.1.0"

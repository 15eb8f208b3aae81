"""The one Jinja environment and its filter set, used by every artefact statedoc renders
(the Mermaid writer and every target)."""

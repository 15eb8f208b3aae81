"""``statedoc server``: a language server for state documents (needs the ``server`` extra).

Two processes. :mod:`.protocol` speaks LSP (pygls) and keeps the open buffers;
:mod:`.worker` reads them: diagnostics from the lint pipeline itself (:mod:`.diagnostics`),
quick fixes (:mod:`.actions`), navigation and hover (:mod:`.navigation`), rename
(:mod:`.rename`), completion (:mod:`.completion`) and symbols (:mod:`.symbols`), over one
load of each version (:mod:`.analysis`). Positions cross the protocol in UTF-16
(:mod:`.positions`). Nothing on the lint path imports this package.
"""

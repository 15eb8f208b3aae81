"""Proofs that a generated module does what its spec document says.

:mod:`.expected` is the model of expected behaviour (read from the spec, or from the module's
own tables); :mod:`.checks` checks every ordered pair of states, the tables and the constants
against it, and :mod:`.events` every (state, event); :mod:`.state_machine` drives a ``Machine``
at random with Hypothesis. :mod:`.failures` holds what the checks share: the failure collector
and the guarded call. Only :mod:`.state_machine` imports Hypothesis.
"""

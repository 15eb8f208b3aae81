"""The SQL target's tests, on real servers (PostgreSQL through psycopg and psql, SQLite from
the standard library). ``conftest.py`` holds the fixtures several files share; the helper
modules (no tests in them) are split by what they do:

- :mod:`.cases`: the specs under test (repository and hostile), bound, rendered, with the
  generated Python module; :mod:`.verdicts`: what a statement must do, from that module;
  :mod:`.pairs`: every pair of states tried on a database and compared with it;
- :mod:`.postgres`: scratch databases, roles and schemas, statements, rows behind the
  triggers' back, psql; :mod:`.catalog`: what a database holds, before and after a file;
- :mod:`.lifecycle`: the delivery spec most attacks use; :mod:`.hostile`: hostile drafts
  (spec and config text); :mod:`.search_path`: the names the generated SQL resolves;
- :mod:`.history`, :mod:`.migrate`, :mod:`.project` (``db check``), :mod:`.audit`
  (``db audit``): one feature's set-up each.
"""

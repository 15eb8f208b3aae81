"""What every stage shares and imports nothing of statedoc: findings, errors, exit codes and
the "did you mean" of names. The bottom layer of the import order."""

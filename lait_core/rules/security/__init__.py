"""LAIT6xx: security findings, one rule per module (its doc, examples and check together).

They are warnings: each may be intended (a tool that gives the model a shell on purpose), so a
project keeps it with ``# lait: ignore[LAIT60x]``; ``lait lint --strict`` fails on them.
"""

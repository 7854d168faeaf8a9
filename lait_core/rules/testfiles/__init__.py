"""LAIT7xx: test and eval files (docs/testing.md), one rule per module (its doc, examples
and check together); :mod:`.checks` runs them over one file. jq expressions in assertions are
LAIT402 (jq-syntax), like everywhere else."""

"""`lait-ls`: the language server entry point.

The full server (live diagnostics, completion, hover, navigation, quick fixes) is the subject
of its own issue; this entry point exists so the console script is installed and reports that
plainly instead of failing with an import error.
"""

from __future__ import annotations

import sys


def main() -> None:
    sys.stderr.write("lait-ls: the language server is not available in this version yet\n")
    raise SystemExit(1)

"""``python -m lait_cli``: the same entry as the ``lait`` console script."""

from lait_cli.entry import main

main()

"""``lait test`` and ``lait eval`` (docs/testing.md): test files run a workflow against
its cassette, eval files run cases against the live model, and both assert on the output and the
trajectory. ``definition`` reads test and eval files (unknown keys rejected, located),
``assertions`` evaluates the assertions, ``runner`` finds test files and runs them, ``eval`` runs
an eval file, ``record`` refreshes cassettes (``lait test --record``), ``reports`` writes JUnit XML and GitHub annotations,
``pytest_plugin`` collects test files in pytest."""

pytest_plugins = ("lait_core.testing.pytest_plugin",)
"""pytest loads this package through the ``pytest11`` entry point ``lait``; this pulls in the plugin
(``pytest_plugin``: lait test files as pytest items, opt-in with ``--lait``)."""

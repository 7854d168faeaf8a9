"""``lait test`` (spec tools-mcp-cli 7.6): test files that run a workflow against its cassette and
assert on the output and the trajectory. ``definition`` reads a test file (unknown keys rejected,
located), ``assertions`` evaluates the assertions, ``runner`` finds the files and runs them."""

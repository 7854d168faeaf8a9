"""One module per ``lait`` subcommand (``register(app)``), named after the command; bare
``lait [PROMPT]`` is :mod:`.single_shot`. The table of them is :mod:`lait_cli.command_table`."""

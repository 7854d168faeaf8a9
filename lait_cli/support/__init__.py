"""What the commands of ``lait_cli/commands/`` share: options, errors, terminal dialogs, the
Ctrl-C protocol, run set-up, records flags, redacted stderr, the REPL."""

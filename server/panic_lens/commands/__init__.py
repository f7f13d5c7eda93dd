"""The CLI's subcommands, one module each; `cli.py` only builds the parser and dispatches."""

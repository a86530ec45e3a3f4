"""One module per ``menace`` subcommand; each is imported only when it runs."""

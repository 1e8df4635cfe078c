"""The `agui` command line: option parsing, rendering and exit codes, nothing more."""

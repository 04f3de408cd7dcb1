"""`python -m agentcli` runs the `agent` command."""

from agentcli.cli.app import main

main()

"""The `run_command` tool: a shell command in the workspace, in the kernel sandbox, with a bounded, honest result.

- `environment.py`: the user's environment minus what could hold a credential.
- `capture.py`: the output kept in bounded memory (head, tail and exact counts) and the result's cut.
- `process.py`: start the command in its own process group, read it, time it out, kill the whole group.
- `allow.py`: the allow rules (`--allow`, the config file's `allow`), matched on each simple command.
- `tool.py`: the tool itself, its result, and what the approval prompt shows.
"""

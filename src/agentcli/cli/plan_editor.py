"""Open text in the user's editor and read it back: `$VISUAL`, else `$EDITOR`, else vi (notepad on Windows).

The variable may hold arguments (`code --wait`), split as a shell would split them. Whatever goes wrong (no
such editor, the editor failing, text that is not UTF-8) is an EditorError with one line saying what happened.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path


class EditorError(Exception):
    """The edit did not happen: the message says why, in one line."""


def editor_command() -> tuple[list[str], str]:
    """The editor's command line (without the file) and where it came from, for messages."""
    for variable in ("VISUAL", "EDITOR"):
        value = os.environ.get(variable, "").strip()
        if value:
            try:
                command = shlex.split(value)
            except ValueError as exc:  # an unbalanced quote
                raise EditorError(f"${variable} ({value!r}) cannot be read as a command: {exc}") from None
            return command, f"${variable}"
    return ["notepad" if os.name == "nt" else "vi"], "the default editor (set $VISUAL or $EDITOR)"


def edit_text(text: str, *, suffix: str = ".md") -> str:
    """`text` as the user left it after editing it in their editor (which runs on this terminal)."""
    command, source = editor_command()
    with tempfile.TemporaryDirectory(prefix="agentcli-") as folder:
        path = Path(folder) / f"plan{suffix}"
        path.write_text(text, encoding="utf-8")
        try:
            status = subprocess.run([*command, str(path)], check=False).returncode
        except OSError as exc:
            raise EditorError(f"could not start {shlex.join(command)} ({source}): {exc.strerror or exc}") from None
        if status != 0:
            raise EditorError(f"{shlex.join(command)} ({source}) exited with status {status}")
        try:
            return path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise EditorError("the edited file is not UTF-8 text") from None
        except OSError as exc:  # the editor removed or replaced it
            raise EditorError(f"the edited file could not be read back: {exc.strerror or exc}") from None

"""The parameter the file tools share, as the model is told it."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

FilePath = Annotated[str, Field(description="Relative to the workspace root")]

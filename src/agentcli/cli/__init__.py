"""The command line: a thin Typer shell over the Python API. Only this package and render/ import Typer or Rich."""

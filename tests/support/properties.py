"""How hard the property tests search (issue 16).

Each runs the profile's 50 examples (tests/conftest.py), except those that guard a boundary an attacker pushes
on: what a command's allow rules let through, what the file tools may read, whether an ignore rule can make a
walk backtrack, what reaches the terminal. A miss there is a hole, so they search twice as hard.
"""

BOUNDARY_EXAMPLES = 100

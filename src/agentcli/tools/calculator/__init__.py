"""The calculator tool: a parser to an allow-listed AST, its rules, and the walk that computes it."""

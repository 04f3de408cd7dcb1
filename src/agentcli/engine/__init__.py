"""The engine: an explicit state machine that turns a question into tool calls and a checked answer."""

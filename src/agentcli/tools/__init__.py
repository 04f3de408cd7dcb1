"""Tools: typed Python functions the model can call, and the registry that calls them safely."""

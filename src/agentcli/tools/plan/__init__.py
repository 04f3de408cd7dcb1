"""The plan tool: the model keeps a visible plan, which the judge holds its answer to."""

"""What every tool stands on: the decorator, schemas from signatures, the registry that calls tools safely, and
the context a tool is handed (the workspace it may touch, the ledger of what it saw and changed, the plan board).
Nothing here imports a tool family: files/, commands/, calculator/ and plan/ build on it."""

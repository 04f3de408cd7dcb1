"""Test support shared by tests/ and bench/: the scripted OpenAI-compatible server (`scripted_server`)."""

"""The LLM layer: provider-neutral types and the OpenAI-compatible client."""

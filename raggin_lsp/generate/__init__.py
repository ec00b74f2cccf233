"""Answers from a local Ollama model, grounded in retrieved sections and cited."""

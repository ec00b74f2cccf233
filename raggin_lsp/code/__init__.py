"""Reading JavaScript and TypeScript source (the user's files and the docs' examples)."""

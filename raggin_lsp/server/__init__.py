"""The language server: translates LSP to calls of the pipeline stages. Only this package imports pygls."""

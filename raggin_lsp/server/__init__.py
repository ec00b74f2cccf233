"""The language server: translates LSP to calls of the Assistant. Only this package imports pygls.

``features.py`` holds every registration; each feature lives in its own module.
"""

"""The versioned, content-addressed Qdrant index of docs sections."""

"""The large-file strategy: pieces, delta templates, the shape check, settling ahead of
the reader and work sharing with a helper process."""

"""Editing: the document and its undo, the controls, the embedding tables."""

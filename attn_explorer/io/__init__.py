"""Reading and writing files without Qt: sessions, data exports and generated PyTorch code.

Kept apart from the window so the command line, scripts and tests can save, load and export
headless, and so every file format is tested without a display.
"""

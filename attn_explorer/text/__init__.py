"""Every word a user reads about a computation: explanations, formulas, titles, summaries.

Qt-free, so the window, the exported figures and the command line say the same things; it
reads the engine's numbers and never computes attention itself.
"""

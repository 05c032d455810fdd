"""The Matrices tab: the board of matrices a trace is drawn on, and its one paint pass."""

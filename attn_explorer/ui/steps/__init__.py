"""The step-through: one stage of the computation at a time, with its formula and numbers."""

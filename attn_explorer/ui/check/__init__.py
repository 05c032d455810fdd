"""Edit → Check my numbers…: the dialog (`dialog`) and its grid of verdicts (`grid`)."""

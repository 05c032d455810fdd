"""Compare A with B, and heads switched on and off, in the window and in figures.

- `diff_plot`: drawing B − A of one array into a `MatrixPlot` (a diverging map centred on 0,
  the largest change named), shared by the board and the exported figure;
- `figure`: the figure of A, B and B − A that `attn-explorer export --compare` writes;
- `pin`: pinning what is on screen as A, an undoable edit of the document;
- `heads_panel`: heads switched on and off, and their importance as a sorted bar chart;
- `compare_panel`: the summary of what differs, and which side the matrices show.
"""

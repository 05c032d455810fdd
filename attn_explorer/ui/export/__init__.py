"""Export from the window: figures, stage files, the export dialog, File menu actions."""

"""A real model in the window: File → Open Model…, the model view (every layer × head) and its
figure, and opening a head in the lab. The numbers come from `attn_explorer.lens`."""

"""What the step-through's tests share."""


def load(window, wait_settled, name: str) -> None:
    """Load example `name` into `window` and wait for its picture."""
    window.load_preset(name)
    wait_settled(window)

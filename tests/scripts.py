"""Running an exported PyTorch script: as a user does (`python script.py`), or as __main__ in
the test process, which prints the same and costs no new Python importing torch."""

import contextlib
import io
import os
import subprocess
import sys
import traceback


def run_script(path, encoding: str | None = None) -> subprocess.CompletedProcess:
    """Run a script as `python script.py`; `encoding` is its stdout's (a narrow console)."""
    env = None if encoding is None else {**os.environ, "PYTHONIOENCODING": encoding}
    return subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        encoding=encoding,  # read the printout as the console would show it
        timeout=120,
        env=env,
    )


def run_in_process(path, encoding: str | None = None) -> subprocess.CompletedProcess:
    """What `run_script` returns, with the script run as __main__ in this process: starting a
    Python that imports torch took ~1.5 s a script. Torch's global RNG (the script seeds it),
    default dtype and threads are as a fresh process has them while it runs, and restored.

    With `encoding`, stdout is what PYTHONIOENCODING=<encoding> makes of a pipe: that encoding,
    errors "strict" until the script reconfigures them, bytes read back as subprocess.run's
    text=True reads them. Without, a StringIO, as a UTF-8 console (which shows every letter;
    the one test that runs a script as a process checks its printout is this one)."""
    import torch  # on first use, as the engine imports it

    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    raw = io.BytesIO()
    if encoding is None:
        out = io.StringIO()
    else:
        out = io.TextIOWrapper(raw, encoding=encoding, errors="strict", write_through=True)
    err = io.StringIO()
    rng, dtype, threads = torch.get_rng_state(), torch.get_default_dtype(), torch.get_num_threads()
    returncode = 0
    try:
        torch.set_default_dtype(torch.float32)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                exec(code, {"__name__": "__main__", "__file__": str(path)})
            except SystemExit as stop:
                if isinstance(stop.code, int) or stop.code is None:
                    returncode = stop.code or 0
                else:  # sys.exit("message"), as Python does
                    print(stop.code, file=sys.stderr)
                    returncode = 1
            except BaseException:
                traceback.print_exc()
                returncode = 1
    finally:
        torch.set_rng_state(rng)
        torch.set_default_dtype(dtype)
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
    if encoding is None:
        stdout = out.getvalue()
    else:
        out.flush()
        stdout = raw.getvalue().decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
    args = [sys.executable, str(path)]
    return subprocess.CompletedProcess(args, returncode, stdout, err.getvalue())

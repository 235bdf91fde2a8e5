"""Ctrl-C during one long native call: the call runs on a worker thread while this thread waits
in short slices, so KeyboardInterrupt is raised here at once; the abandoned call finishes in the
background and its result is dropped. Only for calls that release the GIL (the core's bindings
do; scipy's LAPACK wrappers hold it, so the wait would not get a slice until they return)."""

import threading

_SLICE_S = 0.02


def call_interruptibly(function, *args, **kwargs):
    """function(*args, **kwargs), its exception re-raised here, Ctrl-C honoured while it runs."""
    outcome = {}

    def run():
        try:
            outcome["value"] = function(*args, **kwargs)
        except BaseException as exc:  # re-raised in the caller's thread
            outcome["error"] = exc

    worker = threading.Thread(target=run, name="kernlearn-native-call", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(_SLICE_S)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]

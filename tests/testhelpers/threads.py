"""Running one test body in several threads at once, with a timeout."""
import threading


def run_in_threads(work, n, timeout=120):
    """Run ``work()`` in ``n`` threads started together; return the
    exceptions they raised (a list, empty when all passed). A thread still
    running after ``timeout`` seconds fails the test instead of hanging it.
    """
    errors = []

    def body():
        try:
            work()
        except Exception as e:  # noqa: BLE001 - returned to the test
            errors.append(e)
    threads = [threading.Thread(target=body, daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
    assert not any(t.is_alive() for t in threads), \
        'a thread still ran after {} s'.format(timeout)
    return errors

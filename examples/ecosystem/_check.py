"""PASS/FAIL bookkeeping shared by the try_*.py drivers."""
import sys
import traceback

results = []
prefix = ''  # e.g. '[rank 1] ' for MPI drivers


def check(name, fn, *args, **kwargs):
    """Run ``fn``; print one PASS/FAIL line (with the traceback tail)."""
    try:
        out = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 -- discovery: record everything
        tb = traceback.format_exc().rstrip().splitlines()
        msg = [ln.strip() for ln in str(e).splitlines() if ln.strip()][:3]
        print(prefix + 'FAIL %s: %s: %s' % (name, type(e).__name__,
                                            ' / '.join(msg)))
        for line in tb[-8:]:
            print(prefix + '    | ' + line)
        results.append((name, False))
        sys.stdout.flush()
        return None
    print(prefix + 'PASS %s' % name)
    results.append((name, True))
    sys.stdout.flush()
    return out


def summary(label):
    n_pass = sum(ok for _, ok in results)
    print(prefix + '%s: %d passed, %d failed' % (label, n_pass, len(results) - n_pass))
    return 0 if n_pass == len(results) else 1

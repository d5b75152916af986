"""The benchmark suite of sklearn-ed (not part of the installed package).

Run one benchmark with ``python -m benchmarks run NAME`` from the repository
root; ``python -m benchmarks list`` shows them all and ``python -m benchmarks
stale`` the results whose script changed since they were produced. The
suite is declared in ``_suite.py``.
"""

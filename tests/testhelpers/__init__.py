"""Helpers shared by several test modules (not tests themselves).

Importable as ``testhelpers`` because pytest puts ``tests/`` on ``sys.path``
(``pythonpath = ["tests"]`` in pyproject.toml's pytest options):

- ``hooks``: a small MLP and a fake clock for the function and link hook tests;
- ``mn_model``: MPI helpers of the ``cpuframe.mn`` tests (rank checks,
  sums and numerical gradients across processes);
- ``intel64_layouts``: inputs in oneDNN's layouts and a recorder of native
  calls for the intel64 parity tests;
- ``routed_cases``: every routed op as a case the edge-value and thread
  tests run (``backends/intel64/_thread_stress.py`` imports it too, with
  ``tests/`` on its PYTHONPATH);
- ``threads``: one test body run in several threads at once, with a timeout.
"""

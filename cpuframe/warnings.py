"""Warning categories of the framework."""


class PerformanceWarning(RuntimeWarning):
    """Warning that indicates possible performance issues."""

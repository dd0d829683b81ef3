"""Device backends: the NumPy CPU path, oneDNN (intel64) and CuPy (cuda)."""

"""Statistics, distributions, models, metrics, tables and figures.

The numerics live here as plain Python functions on NumPy arrays and Lamina
values; lamina.builtins registers them. SciPy and matplotlib are imported inside
the functions that need them, never when a module is imported, so that starting
Lamina stays fast.
"""

"""The engines: what is built on the layers below (solver, explanations, lint, portability, generation, fuzzing,
properties, reports and output folders). See docs/architecture.md.
"""

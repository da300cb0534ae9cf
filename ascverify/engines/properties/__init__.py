"""Hypothesis strategies and invariants built from the models."""

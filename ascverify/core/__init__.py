"""Execution core: a numpy simulation of on-chip memory and of the accesses a kernel call makes."""

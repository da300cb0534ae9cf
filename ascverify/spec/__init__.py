"""The specification: element types, products, parameters, rules, the API model base and the registry.

The lowest layer: it imports nothing else of ascverify (see docs/architecture.md).
"""

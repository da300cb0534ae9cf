"""API models. Adding an API means adding its module here: the list below registers it."""

from importlib import import_module

#: One module per API; each registers its model with `ascverify.registry.register`.
MODULES = ("bilinear", "block_reduce_min", "set_vector_mask")

for _name in MODULES:
    import_module(f"{__name__}.{_name}")

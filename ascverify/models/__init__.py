"""API models. Adding an API means adding its module here: the list below registers it."""

from importlib import import_module

#: One module per API; each registers its model with `ascverify.registry.register`.
MODULES = ("bilinear", "block_reduce_min", "set_vector_mask", "set_load_data_repeat", "reg_load_align", "reg_mask_gen",
           "load3d", "set_fmatrix", "load_data_with_stride")

for _name in MODULES:
    import_module(f"{__name__}.{_name}")

"""The API models: one module per API, each registering its model with `ascverify.spec.registry.register`.

Importing this package registers every API, in the order of the registry list below; adding an API is adding
its module to this package and one line to that list. The family helpers (`vector_common`, `img2col`,
`codec`, `block_reduce_family`) register nothing.
"""

from . import (  # noqa: F401  the registry list: one line per API, in registration order
    bilinear,
    block_reduce_min,
    block_reduce_max,
    block_reduce_sum,
    set_vector_mask,
    set_load_data_repeat,
    reg_load_align,
    reg_mask_gen,
    load3d,
    set_fmatrix,
    load_data_with_stride,
)

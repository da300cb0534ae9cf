"""The API models: one module per API, each registering its model with `ascverify.spec.registry.register`.

`REGISTRY` is the registry list: one line per API module, in registration order (the order of
`ascverify.apis()`), with the API name and the aliases the module registers. Importing this package declares
the list to the registry, which imports a module when one of its names is first looked up (``check`` of a file
of one API imports that API's module only); `ascverify.apis()` imports them all. Adding an API is adding its
module to this package and one line to that list. The family helpers (`vector_common`, `img2col`, `codec`,
`block_reduce_family`) register nothing.
"""

from ..spec.registry import declare

#: The registry list: (module, (API name, aliases...)), in registration order.
REGISTRY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("bilinear", ("BilinearInterpolation", "bilinear_interpolation", "asc.language.basic.bilinear_interpolation")),
    ("block_reduce_min", ("BlockReduceMin", "block_reduce_min", "asc.language.basic.block_reduce_min")),
    ("block_reduce_max", ("BlockReduceMax", "block_reduce_max", "asc.language.basic.block_reduce_max")),
    ("block_reduce_sum", ("BlockReduceSum", "block_reduce_sum", "asc.language.basic.block_reduce_sum")),
    ("set_vector_mask", ("SetVectorMask", "set_vector_mask", "asc.language.basic.set_vector_mask")),
    ("set_mask_count", ("SetMaskCount", "set_mask_count", "asc.language.basic.set_mask_count")),
    ("set_mask_norm", ("SetMaskNorm", "set_mask_norm", "asc.language.basic.set_mask_norm")),
    ("set_load_data_repeat", ("SetLoadDataRepeatWithStride",)),
    ("set_load_data_repeat_v2", ("SetLoadDataRepeat", "set_load_data_repeat", "asc.language.basic.set_load_data_repeat")),
    ("reg_load_align", ("LoadAlign", "Reg::LoadAlign", "AscendC::Reg::LoadAlign")),
    ("reg_load_align_vreg", ("LoadAlignRegTensor",)),
    ("reg_load_align_block", ("LoadAlignDataBlock",)),
    ("reg_mask_gen", ("MaskGenWithRegTensor", "Reg::MaskGenWithRegTensor", "AscendC::Reg::MaskGenWithRegTensor")),
    ("load3d", ("Load3DBitMode", "LoadData3DBitMode", "load3d", "load_data", "asc.language.basic.load_data")),
    ("set_fmatrix", ("SetFmatrix", "set_fmatrix")),
    ("load_data_with_stride", ("LoadDataWithStride", "load_data_with_stride")),
    ("reset_mask", ("ResetMask", "reset_mask", "asc.language.basic.reset_mask")),
)

declare(__name__, REGISTRY)

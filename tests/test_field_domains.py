"""`field_domains`: a field named by several one-of rules may take exactly the values every one of them lists."""

from __future__ import annotations

import pytest

from ascverify.spec.domains import field_domains
from ascverify.spec.products import lookup_product
from ascverify.spec.registry import get_api


@pytest.mark.parametrize("api", ["LoadDataWithStride", "Load3DBitMode"])
def test_one_of_rules_intersect_in_order(api: str) -> None:
    model = get_api(api)
    product = lookup_product("atlas-350")
    for dtype in model.support[product.id]:
        ctx = model.context(product, dtype, None)
        lists = [tuple(r.domain["codes"](ctx)) for r in model.rules_for(product.id)
                 if r.when is None and r.domain.get("kind") == "one_of" and r.domain.get("field") == "sizeChannel"]
        assert len(lists) >= 2, "two one-of rules name sizeChannel (named and unnamed types)"
        # the values of the first list that every other list holds, in the first list's order
        others = [set(other) for other in lists[1:]]
        expected = tuple(v for v in lists[0] if all(v in other for other in others))
        assert field_domains(model, ctx)["sizeChannel"].choices == expected

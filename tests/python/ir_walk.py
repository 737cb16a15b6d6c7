"""Walking a traced kernel's IR in program order, into for, while and if regions (test
helper)."""


def walk(region):
    """(oneof kind, message, op) of every op of `region` and of the regions inside it."""
    for op in region.ops:
        kind = op.WhichOneof("kind")
        yield kind, getattr(op, kind), op
        if kind == "for_op":
            yield from walk(op.for_op.body)
        elif kind == "while_op":
            yield from walk(op.while_op.body)
        elif kind == "if_op":
            yield from walk(op.if_op.then_region)
            yield from walk(op.if_op.else_region)

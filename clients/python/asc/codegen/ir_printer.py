"""Human-readable text of kernel IR (for debugging, tests and PYASC_DUMP-style dumps)."""
from asc._proto import kernel_pb2

_DT = {v: k[3:].lower() for k, v in kernel_pb2.DType.items()}
_SPACE = {v: k[4:] for k, v in kernel_pb2.MemSpace.items()}


def _ref(r) -> str:
    count = f", n=%{r.count}" if r.count else ""
    return f"{_SPACE[r.space]}[%{r.addr}:{_DT[r.dtype]}{count}]"


def _op_text(op, indent: str, out: list, files) -> None:
    kind = op.WhichOneof("kind")
    m = getattr(op, kind)
    loc = f"  // {files[op.loc.file] if op.loc.file < len(files) else '?'}:{op.loc.line}" \
        if op.loc.line else ""
    if kind == "constant":
        v = m.float_value if m.WhichOneof("value") == "float_value" else m.int_value
        text = f"%{m.result} = const {v} : {_DT[m.dtype]}"
    elif kind == "scalar_binary":
        name = kernel_pb2.ScalarBinaryOp.Kind.Name(m.kind).lower()
        text = f"%{m.result} = {name} %{m.lhs}, %{m.rhs} : {_DT[m.dtype]}"
    elif kind == "scalar_unary":
        name = kernel_pb2.ScalarUnaryOp.Kind.Name(m.kind).lower()
        text = f"%{m.result} = {name} %{m.operand} : {_DT[m.src_dtype]} -> {_DT[m.dtype]}"
    elif kind == "sys_value":
        name = kernel_pb2.SysValueOp.Kind.Name(m.kind).lower()
        text = f"%{m.result} = {name} : {_DT[m.dtype]}"
    elif kind == "select":
        text = f"%{m.result} = select %{m.cond}, %{m.true_value}, %{m.false_value}"
    elif kind == "for_op":
        carried = ", ".join(f"%{a}=%{i}" for a, i in zip(m.iter_args, m.init))
        res = ", ".join(f"%{r}" for r in m.results)
        out.append(f"{indent}{res + ' = ' if res else ''}for %{m.induction} = %{m.lower} to "
                   f"%{m.upper} step %{m.step} iter({carried}) {{{loc}")
        for o in m.body.ops:
            _op_text(o, indent + "  ", out, files)
        if m.yields:
            out.append(f"{indent}  yield " + ", ".join(f"%{y}" for y in m.yields))
        out.append(f"{indent}}}")
        return
    elif kind == "while_op":
        carried = ", ".join(f"%{a}=%{i}" for a, i in zip(m.iter_args, m.init))
        res = ", ".join(f"%{r}" for r in m.results)
        out.append(f"{indent}{res + ' = ' if res else ''}do iter({carried}) {{{loc}")
        for o in m.body.ops:
            _op_text(o, indent + "  ", out, files)
        if m.yields:
            out.append(f"{indent}  yield " + ", ".join(f"%{y}" for y in m.yields))
        out.append(f"{indent}}} while %{m.cond}")
        return
    elif kind == "if_op":
        res = ", ".join(f"%{r}" for r in m.results)
        out.append(f"{indent}{res + ' = ' if res else ''}if %{m.cond} {{{loc}")
        for o in m.then_region.ops:
            _op_text(o, indent + "  ", out, files)
        if m.then_yields:
            out.append(f"{indent}  yield " + ", ".join(f"%{y}" for y in m.then_yields))
        out.append(f"{indent}}} else {{")
        for o in m.else_region.ops:
            _op_text(o, indent + "  ", out, files)
        if m.else_yields:
            out.append(f"{indent}  yield " + ", ".join(f"%{y}" for y in m.else_yields))
        out.append(f"{indent}}}")
        return
    elif kind == "scalar_load":
        text = f"%{m.result} = get_value {_ref(m.src)}[%{m.index}]"
    elif kind == "scalar_store":
        text = f"set_value {_ref(m.dst)}[%{m.index}] = %{m.value}"
    elif kind == "data_copy":
        if m.params_form:
            args = (f"params(%{m.block_count}, %{m.block_len}, %{m.src_stride}, "
                    f"%{m.dst_stride})")
        else:
            args = f"count=%{m.count}"
        text = f"data_copy {_ref(m.dst)} <- {_ref(m.src)}, {args}"
    elif kind == "vec_binary":
        name = kernel_pb2.VecBinaryOp.Kind.Name(m.kind).lower()
        text = f"v{name} {_ref(m.dst)} <- {_ref(m.src0)}, {_ref(m.src1)}, count=%{m.count}"
    elif kind == "vec_unary":
        name = kernel_pb2.VecUnaryOp.Kind.Name(m.kind).lower()
        text = f"v{name} {_ref(m.dst)} <- {_ref(m.src)}, count=%{m.count}"
    elif kind == "vec_scalar":
        name = kernel_pb2.VecScalarOp.Kind.Name(m.kind).lower()
        text = f"v{name} {_ref(m.dst)} <- {_ref(m.src)}, %{m.scalar}, count=%{m.count}"
    elif kind in ("set_flag", "wait_flag"):
        text = f"{kind} event={m.event} id=%{m.event_id}"
    elif kind == "pipe_barrier":
        text = f"pipe_barrier {kernel_pb2.Pipe.Name(m.pipe)}"
    elif kind == "framework":
        text = _framework_text(m)
    elif kind in _FIELD_LISTED:
        text = f"{kind} {_fields_text(m)}"
    else:
        text = f"{kind} {m}"
    out.append(f"{indent}{text}{loc}")


# Ops printed as their set fields: tensors as refs, integer fields as the SSA ids they hold.
_FIELD_LISTED = ("nd2nz_copy", "load_data_2d", "mmad", "fixpipe")


def _fields_text(m) -> str:
    parts = []
    for field, value in m.ListFields():
        if field.message_type is not None and field.message_type.name == "TensorRef":
            parts.append(f"{field.name}={_ref(value)}")
        elif field.enum_type is not None:
            parts.append(f"{field.name}={field.enum_type.values_by_number[value].name}")
        elif field.type == field.TYPE_BOOL:
            parts.append(f"{field.name}={value}")
        else:
            parts.append(f"{field.name}=%{value}")
    return ", ".join(parts)


def _framework_text(m) -> str:
    name = kernel_pb2.FrameworkOp.Kind.Name(m.kind).lower()
    results = [f"%{r}" for r in (m.result, m.result2) if r]
    args = []
    if m.queue:
        args.append(f"queue={m.queue}")
    if m.pool:
        args.append(f"pool={m.pool}")
    if m.sub_pool:
        args.append(f"sub_pool={m.sub_pool}")
    if m.share_pool:
        args.append(f"share={m.share_pool}")
    if m.kind in (m.ALLOC_EVENT_ID, m.FETCH_EVENT_ID, m.RELEASE_EVENT_ID):
        args.append(f"event={m.event}")
    if m.kind == m.GET_BASE_ADDR:
        args.append(f"pos={kernel_pb2.Position.Name(m.position)}")
    args += [f"%{o}" for o in m.operands]
    prefix = ", ".join(results) + " = " if results else ""
    return f"{prefix}{name} {', '.join(args)}".rstrip()


def format_kernel(kernel: kernel_pb2.Kernel) -> str:
    params = ", ".join(f"%{p.value} {p.name}: {'ptr ' if p.kind == p.KIND_POINTER else ''}"
                       f"{_DT[p.dtype]}" for p in kernel.params)
    out = [f"kernel {kernel.name}({params}) "
           f"[{kernel_pb2.KernelType.Name(kernel.kernel_type)}] {{"]
    if kernel.sync.auto_sync or kernel.sync.erase_user_flags:
        out.append(f"  // sync: auto_sync={kernel.sync.auto_sync} "
                   f"erase_user_flags={kernel.sync.erase_user_flags}")
    for q in kernel.queues:
        kind = kernel_pb2.QueueDecl.Kind.Name(q.kind).lower()
        out.append(f"  // {kind} {q.id} '{q.name}': "
                   f"{kernel_pb2.Position.Name(q.src_position)}->"
                   f"{kernel_pb2.Position.Name(q.dst_position)} depth={q.depth}")
    for p in kernel.pools:
        out.append(f"  // pool {p.id} '{p.name}': {kernel_pb2.Position.Name(p.position)} "
                   f"buf_id_size={p.buf_id_size}")
    for op in kernel.body.ops:
        _op_text(op, "  ", out, [f.rsplit('/', 1)[-1] for f in kernel.files])
    out.append("}")
    return "\n".join(out)

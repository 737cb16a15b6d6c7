"""The cube core's Matmul message server (ascendc-semantics.md 7.5; docs/matmul.md, "Mixed
kernels"), as library sub-kernels: the polling loop over the rings of the group's two vector
cores and the handler of each request, on the sequences of matmul_ops.py."""
from asc.language.adv.kfc import (GET_TENSOR_C, ITERATE, ITERATE_ALL, ITERATE_BATCH_ALL,
                                  ITERATE_N_BATCH_ALL, MAX_MSG_COUNT, QUIT, Request, slot_of)
from asc.language.adv.matmul import block_at, blocks_of
from asc.language.adv.matmul_ops import (Events, all_blocks, batch_blocks, compute_block,
                                         n_batch_blocks, skip_block, write_out)
from asc.language.basic.atomic import set_atomic_add, set_atomic_max, set_atomic_min, \
    set_atomic_none
from asc.runtime.jit import jit


@jit
def server_loop(srv, workspace):
    """Serve the group's two vector cores until both have quit. A queue that holds a request
    is served, alternating when both do; after an ITERATE the server keeps to that client until
    its last block is delivered (the queue lock); each request is freed after it is handled."""
    aiv0 = srv.group * 2
    idx0 = 0
    idx1 = 0
    quit0 = False
    quit1 = False
    lock = -1
    turn = 0
    running = True
    while running:
        slot0 = slot_of(workspace, aiv0, idx0)
        slot1 = slot_of(workspace, aiv0 + 1, idx1)
        only0 = (lock == 0) or quit1
        only1 = (lock == 1) or quit0
        ready0 = False
        ready1 = False
        if only0:
            srv.wait_one(slot0)
            ready0 = True
        elif only1:
            srv.wait_one(slot1)
            ready1 = True
        else:
            held = srv.wait_any(slot0, slot1)
            ready0 = (held & 1) != 0
            ready1 = (held & 2) != 0
        take1 = ready1 and ((not ready0) or turn == 1)
        slot = slot1 if take1 else slot0
        q = 1 if take1 else 0
        fun = srv.head(slot) >> 16
        lock = serve(srv, fun, slot, q, lock)
        srv.free(slot)
        is_quit = fun == QUIT
        if take1:
            idx1 = (idx1 + 1) % MAX_MSG_COUNT
            quit1 = quit1 or is_quit
        else:
            idx0 = (idx0 + 1) % MAX_MSG_COUNT
            quit0 = quit0 or is_quit
        turn = 0 if take1 else 1
        running = not (quit0 and quit1)


@jit
def serve(srv, fun, slot, q, lock):
    """One request of client q; returns the queue lock after it."""
    if fun == ITERATE_ALL:
        iterate_all(srv, slot, q)
    elif fun == ITERATE_BATCH_ALL:
        iterate_batch(srv, slot, q)
    elif fun == ITERATE_N_BATCH_ALL:
        iterate_n_batch(srv, slot, q)
    elif fun == ITERATE:
        iterate_block(srv, slot)
        lock = q
    elif fun == GET_TENSOR_C:
        if deliver_block(srv, slot, q):
            lock = -1
    return lock


@jit
def atomic_on(atomic, dtype):
    """The request's store atomic mode (1 add, 2 max, 3 min) around its Fixpipes."""
    if atomic == 1:
        set_atomic_add(dtype)
    elif atomic == 2:
        set_atomic_max(dtype)
    elif atomic == 3:
        set_atomic_min(dtype)


@jit
def atomic_off(atomic):
    if atomic != 0:
        set_atomic_none()


@jit
def iterate_all(srv, slot, q):
    """ITERATE_ALL: every block of the request's region into C in GM, one notification at the
    end when the client waits (sync)."""
    req = Request(srv, slot)
    atomic_on(req.atomic, srv.plan.c_dtype)
    ev = Events(srv.plan.has_bias, True, srv.plan.dequant, srv.plan.unit_flag)
    all_blocks(req, srv.buffers, ev, req.c_gm(), req._get("c_pitch"), srv.plan.quant)
    ev.finish()
    atomic_off(req.atomic)
    if req.sync:
        srv.notify(q)


@jit
def iterate_batch(srv, slot, q):
    """ITERATE_BATCH_ALL: the request's NORMAL batch into C in GM, then the notification."""
    srv.forget_shared()
    req = Request(srv, slot)
    atomic_on(req.atomic, srv.plan.c_dtype)
    ev = Events(srv.plan.has_bias, True, srv.plan.dequant, srv.plan.unit_flag)
    batch_blocks(req, srv.buffers, ev, req.c_gm(), req._get("c_pitch"), srv.plan.quant,
                 req._get("batch_a"), req._get("batch_b"), req._get("stride_a"),
                 req._get("stride_b"), req._get("stride_c"))
    ev.finish()
    atomic_off(req.atomic)
    if req.sync:
        srv.notify(q)


@jit
def iterate_n_batch(srv, slot, q):
    """ITERATE_N_BATCH_ALL: `count` batch groups into the workspace C points at."""
    srv.forget_shared()
    req = Request(srv, slot)
    ev = Events(srv.plan.has_bias, True, srv.plan.dequant, srv.plan.unit_flag)
    n_batch_blocks(req, srv.buffers, ev, req.c_gm(), req._get("c_pitch"), srv.plan.quant,
                   req._get("count"), req._get("batch_a"), req._get("batch_b"),
                   req._get("stride_a"), req._get("stride_b"), req._get("stride_c"))
    ev.finish()
    if req.sync:
        srv.notify(q)


@jit
def iterate_block(srv, slot):
    """ITERATE: the request's block `count` into L0C; its GET_TENSOR_C follows."""
    srv.forget_shared()
    req = Request(srv, slot)
    m_iter, n_iter = blocks_of(req)
    m0, n0, m, n = block_at(req, req._get("count"), m_iter, n_iter)
    ev = Events(srv.plan.has_bias, True, srv.plan.dequant)
    compute_block(req, srv.buffers, ev, m0, n0, m, n, 0)


@jit
def deliver_block(srv, slot, q):
    """GET_TENSOR_C: the block in L0C to the request's destination (GM, or the client's UB
    mirror in GM), then the notification; a skipped block only frees L0C. Returns whether it
    was the client's last block."""
    req = Request(srv, slot)
    m_iter, n_iter = blocks_of(req)
    m0, n0, m, n = block_at(req, req._get("count"), m_iter, n_iter)
    ev = Events(srv.plan.has_bias, False, srv.plan.dequant)
    if req.skip:
        skip_block(ev)
    else:
        atomic_on(req.atomic, srv.plan.c_dtype)
        write_out(req, srv.buffers, ev, req.c_gm(), m, n, req._get("c_pitch"), n0,
                  srv.plan.quant)
        atomic_off(req.atomic)
    ev.finish()
    if not req.skip:
        srv.notify(q)
    return req.last


@jit
def put_value(floats, index, value, is_constant):
    """A client writes a constant operand's value over its address word (scalar store)."""
    if is_constant:
        floats.set_value(index, value)

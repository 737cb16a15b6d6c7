"""What pyasc compiles compiles here (issue 14): the names and forms pyasc's unit tests trace with
`Launcher.run` or `JITFunction._run_launcher` / `_run_compiler` patched, its compile-option
check, and what those kernels do when they run: unset state reads 0 with a warning,
check_local_memory_ia faults a watched access, get_program_counter names the op."""
from unittest import mock

import numpy as np
import pytest

import asc
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.runtime.compiler import Compiler, CompileOptions
from asc.runtime.errors import KernelFaultError, KernelWarning
from asc.runtime.jit import JITFunction, MockTensor
from asc.runtime.launcher import Launcher


@pytest.fixture
def mock_launcher_run():
    with mock.patch("asc.runtime.launcher.Launcher.run", return_value=None) as run:
        yield run


@pytest.fixture
def mock_jit():
    """pyasc's codegen-test fixture: codegen runs, compiling and launching do not."""
    with mock.patch("asc.runtime.jit.JITFunction._run_launcher", return_value=None) as launch, \
            mock.patch("asc.runtime.jit.JITFunction._run_compiler", return_value=None) as comp:
        yield launch, comp


def setup_function():
    config.set_platform(config.Backend.Model, check=False)


# ---- kernels of the forms (each traced by both fixtures) ----------------------------------------

@asc.jit
def unset_desc_kernel(x: asc.GlobalAddress):
    desc = asc.TensorDesc()
    dim = desc.get_dim()
    index = desc.get_index()
    shape = desc.get_shape(0)
    ptr = desc.get_data_ptr()
    obj = desc.get_data_obj()


@asc.jit
def unset_shape_info_kernel(x: asc.GlobalAddress):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    shape = x_gm.get_shape_info()
    local = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
    info = local.get_shape_info()


@asc.jit
def call_operator_kernel(x: asc.GlobalAddress):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    x_gm_elem = x_gm(128)
    x_local = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 256)
    x_local_elem = x_local(128)


@asc.jit
def select_keywords_kernel():
    dst = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0, 128)
    src0 = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 256, 128)
    src1 = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 512, 128)
    sel_mask = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 768, 32)
    params = asc.BinaryRepeatParams()
    asc.select(dst, sel_mask, src0, repeat_times=1, repeat_params=params)
    asc.select(dst=dst, sel_mask=sel_mask, src0=src0, repeat_times=1, repeat_params=params)
    asc.select(dst=dst, src0=src0, src1=src1, repeat_times=1, repeat_params=params,
               sel_mode=asc.SelMode.VSEL_CMPMASK_SPR)
    asc.select(dst, sel_mask, src0, src1, sel_mode=asc.SelMode.VSEL_TENSOR_TENSOR_MODE,
               count=128)
    asc.select(dst=dst, sel_mask=sel_mask, src0=src0, src1=src1,
               sel_mode=asc.SelMode.VSEL_TENSOR_TENSOR_MODE, mask=128, repeat_times=1,
               repeat_params=params)


@asc.jit
def nz2nd_kernel(z: asc.GlobalAddress):
    z_gm = asc.GlobalTensor()
    z_gm.set_global_buffer(z)
    z_local = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 0, 1024)
    params = asc.Nz2NdParamsFull(1, 32, 32, 1, 32, 32, 1)
    asc.data_copy(z_gm, z_local, params)
    asc.data_copy(z_gm, z_local, intri_params=params)


@asc.jit
def system_registers_kernel():
    pc = asc.get_program_counter()
    status = asc.get_icache_preload_status()
    version = 0
    asc.get_arch_version(version)
    params = asc.CheckLocalMemoryIAParam(enable_bit=1, start_addr=0, end_addr=8,
                                         is_vector_write=True, is_enable=True)
    asc.check_local_memory_ia(params)
    asc.check_local_memory_ia(asc.CheckLocalMemoryIAParam(enable_bit=1))
    asc.inline("")
    asc.inline("// a comment only\n;")


FORM_KERNELS = [(unset_desc_kernel, 1), (unset_shape_info_kernel, 1), (call_operator_kernel, 1),
                (select_keywords_kernel, 0), (nz2nd_kernel, 1), (system_registers_kernel, 0)]


@pytest.mark.parametrize("kernel, tensors", FORM_KERNELS, ids=lambda k: getattr(k, "__name__", ""))
def test_forms_compile_with_launcher_run_patched(mock_launcher_run, kernel, tensors):
    kernel[1](*[MockTensor(asc.float16) for _ in range(tensors)])
    assert mock_launcher_run.call_count == 1


@pytest.mark.parametrize("kernel, tensors", FORM_KERNELS, ids=lambda k: getattr(k, "__name__", ""))
def test_forms_compile_with_the_jit_steps_patched(mock_jit, kernel, tensors):
    launch, comp = mock_jit
    kernel[1](*[MockTensor(asc.float16) for _ in range(tensors)], always_compile=True)
    assert comp.call_count == 1 and launch.call_count == 1
    mod, options = comp.call_args.args
    assert mod.kernel.name == kernel.__name__ and isinstance(options, CompileOptions)
    compiled, launch_options, runtime_args = launch.call_args.args
    assert compiled is None and launch_options.core_num == 1 and len(runtime_args) == tensors


def test_the_jit_steps_run_in_order_with_pyasc_signatures():
    calls = []
    real = (JITFunction._run_codegen, JITFunction._run_compiler, JITFunction._run_launcher)

    def codegen(self, spec, options):
        calls.append("codegen")
        return real[0](self, spec, options)

    def compiler(self, mod, options):
        calls.append("compiler")
        return real[1](self, mod, options)

    def launcher(self, kernel, options, runtime_args):
        calls.append("launcher")

    with mock.patch.object(JITFunction, "_run_codegen", codegen), \
            mock.patch.object(JITFunction, "_run_compiler", compiler), \
            mock.patch.object(JITFunction, "_run_launcher", launcher):
        call_operator_kernel[1](MockTensor(asc.float32), always_compile=True)
    assert calls == ["codegen", "compiler", "launcher"]


# ---- compile options ---------------------------------------------------------------------------

def test_any_compile_option_is_accepted_and_the_compile_step_checks_it():
    options = CompileOptions(opt_level=0)
    with pytest.raises(RuntimeError, match="Please check input compile option"):
        Compiler(options)
    with pytest.raises(RuntimeError, match="Please check input compile option: kernel_type"):
        Compiler(CompileOptions(kernel_type=9))
    for level in (1, 2, 3):
        Compiler(CompileOptions(opt_level=level))


def test_patching_the_compile_step_skips_the_option_check(mock_jit):
    _, comp = mock_jit
    call_operator_kernel[1](MockTensor(asc.float32), opt_level=0, always_compile=True)
    assert comp.call_count == 1 and comp.call_args.args[1].opt_level == 0


def test_a_bad_option_fails_at_compile_with_pyasc_text(mock_launcher_run):
    with pytest.raises(RuntimeError, match="Please check input compile option: opt_level=0"):
        call_operator_kernel[1](MockTensor(asc.float32), opt_level=0, always_compile=True)
    assert mock_launcher_run.call_count == 0


# ---- what the forms do when they run ------------------------------------------------------------

@asc.jit
def unset_state_run_kernel(out: asc.GlobalAddress):
    desc = asc.TensorDesc()
    o = asc.GlobalTensor()
    o.set_global_buffer(out)
    o.set_value(0, desc.get_dim())
    o.set_value(1, o.get_shape_info().shape(0))


def test_unset_state_reads_zero_with_a_warning_at_the_line(device):
    out = np.full(8, 7, dtype=np.uint64)
    with pytest.warns(KernelWarning) as record:
        report = unset_state_run_kernel[1](out, check="warn")
    assert list(out[:2]) == [0, 0] and list(out[2:]) == [7] * 6
    reads = [d for d in report.diagnostics if d.kind == "UNINITIALIZED_READ"]
    assert len(reads) == 2 and all("never set" in d.message for d in reads)
    lines = sorted(d.line for d in reads)
    assert lines[1] == lines[0] + 1 and record


@asc.jit
def watch_kernel(x: asc.GlobalAddress, inside: asc.ConstExpr[bool]):
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, 64)
    asc.data_copy(a, x_gm, 64)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    # Watch blocks (31, 39]: bytes [1024, 1280), b's first 256 bytes, for vector writes.
    asc.check_local_memory_ia(asc.CheckLocalMemoryIAParam(0, 31, 39, is_vector_write=True,
                                                          is_enable=True))
    if inside:
        asc.adds(b, a, 1.0, 64)
    else:
        asc.adds(a, a, 1.0, 64)
    asc.check_local_memory_ia(asc.CheckLocalMemoryIAParam(0))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(x_gm, a, 64)


def test_a_watched_access_faults_at_its_line_and_others_run(device):
    x = np.arange(64, dtype=np.float32)
    watch_kernel[1](x, False)
    assert np.array_equal(x, np.arange(64, dtype=np.float32) + 1)
    with pytest.raises(KernelFaultError) as info:
        watch_kernel[1](np.zeros(64, np.float32), True)
    diag = [d for d in info.value.report.diagnostics if d.kind == "MEMORY_WATCH"]
    assert len(diag) == 1 and diag[0].pipe == "V"
    text = diag[0].message
    assert "vector write" in text and "UB[0x400, 0x500)" in text and "register 0" in text
    assert diag[0].file.endswith("test_pyasc_compat.py")


@asc.jit
def pc_kernel(out: asc.GlobalAddress):
    o = asc.GlobalTensor()
    o.set_global_buffer(out)
    first = asc.get_program_counter()
    second = asc.get_program_counter()
    o.set_value(0, first)
    o.set_value(1, second)
    o.set_value(2, asc.get_icache_preload_status())


def test_program_counter_and_icache_status(device):
    out = np.full(3, -1, dtype=np.int64)
    pc_kernel[1](out)
    assert out[0] % 4 == 0 and out[1] % 4 == 0 and out[1] > out[0] and out[2] == 0


@asc.jit
def nz2nd_run_kernel(src: asc.GlobalAddress, dst: asc.GlobalAddress, n: asc.ConstExpr[int],
                     d: asc.ConstExpr[int], pitch: asc.ConstExpr[int]):
    s_gm, d_gm = asc.GlobalTensor(), asc.GlobalTensor()
    s_gm.set_global_buffer(src)
    d_gm.set_global_buffer(dst)
    t = asc.LocalTensor(src.dtype, asc.TPosition.VECOUT, 0, n * d)
    asc.data_copy(t, s_gm, n * d)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(d_gm, t, asc.Nz2NdParamsFull(1, n, d, 1, n, pitch, 1))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_nz2nd_writes_the_nd_matrix(device, dtype):
    n, d, pitch = 32, 48, 64
    nd = np.arange(n * d).reshape(n, d).astype(dtype)
    # NZ: column fractal c holds rows 0..n-1 of columns 16c..16c+15, row after row.
    nz = np.concatenate([nd[:, c * 16:(c + 1) * 16].reshape(-1) for c in range(d // 16)])
    out = np.full((n, pitch), -1, dtype=dtype)
    nz2nd_run_kernel[1](nz, out, n, d, pitch)
    assert np.array_equal(out[:, :d], nd)
    assert np.all(out[:, d:] == -1)


# ---- refusals at the user's line ----------------------------------------------------------------

def test_inline_cpp_is_refused_at_its_line(mock_launcher_run):
    @asc.jit
    def inline_kernel():
        asc.inline("constexpr int32_t TOTAL_ROWS = 668;")

    with pytest.raises(asc.codegen.errors.CodegenError) as info:
        inline_kernel[1]()
    text = str(info.value)
    assert 'asc.inline("constexpr int32_t TOTAL_ROWS = 668;")' in text
    assert "cannot run verbatim C++" in text


def test_the_names_are_no_longer_unsupported():
    for name in ("inline", "Nz2NdParamsFull", "check_local_memory_ia", "CheckLocalMemoryIAParam",
                 "get_program_counter", "get_icache_preload_status", "get_arch_version"):
        assert callable(getattr(asc, name)), name


# ---- more of pyasc's spellings and texts ---------------------------------------------------------

@asc.jit
def spellings_kernel():
    dst = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0, 128)
    src0 = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 256, 128)
    params = asc.GatherMaskParams(src0_block_stride=1, repeat_times=1, src0_repeat_stride=0,
                                  src1_repeat_stride=0)
    rsvd_cnt = 0
    asc.gather_mask(dst, src0, 2, False, 0, params, rsvd_cnt, asc.GatherMaskMode.DEFAULT)
    asc.gather_mask(dst, src0, 2, False, 0, params, asc.GatherMaskMode.DEFAULT)
    asc.gather_mask(dst, src0, 2, False, 0, params, rsvd_cnt=rsvd_cnt)
    asc.data_sync_barrier(asc.MemDsbT.ALL)
    info = asc.SliceInfo(1, 1, 1, 1, 1)
    default = asc.SliceInfo()
    full = asc.Nz2NdParamsFull(1, 1, 1, 1, 1, 1, 1, 1)  # pyasc's 8th is its internal handle


def test_pyasc_spellings_compile(mock_launcher_run):
    spellings_kernel[1]()
    assert mock_launcher_run.call_count == 1


def test_slice_copies_are_named_as_not_supported_yet(mock_launcher_run):
    @asc.jit
    def slice_kernel(x: asc.GlobalAddress):
        x_gm = asc.GlobalTensor()
        x_gm.set_global_buffer(x)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, x_gm, [asc.SliceInfo()], [asc.SliceInfo()], 1)

    with pytest.raises(asc.codegen.errors.CodegenError, match="not supported by aicore-sim yet"):
        slice_kernel[1](MockTensor(asc.float32))


def test_pyasc_error_texts(mock_launcher_run):
    @asc.jit
    def assert_kernel(num):
        assert 1 < 0, f"assert failed {num}"

    @asc.jit
    def print_kernel(age):
        print(age)

    with pytest.raises(asc.codegen.errors.CodegenError, match="AssertionError"):
        assert_kernel[1](100)
    with pytest.raises(asc.codegen.errors.CodegenError, match="NameError: print is not defined"):
        print_kernel[1](100)


def test_a_missing_simulator_module_gives_pyasc_text(monkeypatch):
    monkeypatch.setattr(config.rt, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="simulator/Ascend910B3/lib") as info:
        config.set_platform(config.Backend.Model, soc_version=config.Platform.Ascend910B3,
                            check=True)
    assert "_aicore_native" in str(info.value)

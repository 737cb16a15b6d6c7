// The pybind11 module `asc._aicore_native`: the C++ runtime (embedded or remote, chosen by
// AICORE_SIM_ADDRESS) exposed to the Python `asc` frontend. Errors become RuntimeError whose
// message starts with the status code in brackets; the GIL is released while the simulator or
// the network works.
#include <Python.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "aicore/runtime.h"

namespace py = pybind11;

namespace aicore::runtime {
namespace {

[[noreturn]] void Raise(const Status& status) {
  throw std::runtime_error(std::string("[") + StatusCodeName(status.code()) + "] " +
                           status.message());
}

void Check(const Status& status) {
  if (!status.ok()) Raise(status);
}

template <typename T>
T Check(StatusOr<T> value) {
  if (!value.ok()) Raise(value.status());
  return std::move(*value);
}

// A held buffer export: keeps the Python object's memory alive and unmovable (numpy refuses to
// resize an exported array) while the GIL is released.
class BufferView {
 public:
  BufferView(py::handle obj, bool writable) {
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj.ptr(), &view_, flags) != 0) {
      PyErr_Clear();
      throw std::runtime_error(std::string("[INVALID_ARGUMENT] expected a C-contiguous") +
                               (writable ? " writable" : "") +
                               " buffer (bytes, bytearray, memoryview or numpy array); this " +
                               std::string(py::str(py::type::handle_of(obj).attr("__name__"))) +
                               (writable ? " is read-only, not contiguous, or exports no buffer"
                                         : " is not contiguous or exports no buffer") +
                               " (numpy.ascontiguousarray makes a contiguous copy)");
    }
  }
  ~BufferView() { PyBuffer_Release(&view_); }
  BufferView(const BufferView&) = delete;
  BufferView& operator=(const BufferView&) = delete;

  void* data() const { return view_.buf; }
  uint64_t size() const { return static_cast<uint64_t>(view_.len); }

 private:
  Py_buffer view_{};
};

std::vector<ArgValue> ConvertArgs(const py::sequence& args) {
  std::vector<ArgValue> out;
  out.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    py::handle item = args[i];
    std::string where = "launch argument " + std::to_string(i);
    if (!py::isinstance<py::tuple>(item) || py::len(item) != 2) {
      throw std::runtime_error("[INVALID_ARGUMENT] " + where +
                               " must be a tuple (kind, value) with kind 'int', 'float' or 'addr'");
    }
    auto tuple = item.cast<py::tuple>();
    std::string kind;
    try {
      kind = tuple[0].cast<std::string>();
      if (kind == "int") {
        out.push_back(ArgValue::Int(tuple[1].cast<int64_t>()));
      } else if (kind == "float") {
        out.push_back(ArgValue::Float(tuple[1].cast<double>()));
      } else if (kind == "addr") {
        out.push_back(ArgValue::Address(tuple[1].cast<uint64_t>()));
      } else {
        throw std::runtime_error("[INVALID_ARGUMENT] " + where + " has kind '" + kind +
                                 "'; expected 'int', 'float' or 'addr'");
      }
    } catch (const py::cast_error&) {
      throw std::runtime_error(
          "[INVALID_ARGUMENT] " + where + " of kind '" + kind +
          "' has a value of the wrong type or out of range: " + std::string(py::str(tuple[1])));
    }
  }
  return out;
}

class PyRuntime {
 public:
  PyRuntime(const std::string& platform, const std::string& config_overrides) {
    py::gil_scoped_release release;
    runtime_ = Check(Runtime::Create(platform, config_overrides));
  }

  std::string transport() const { return runtime_->transport(); }
  std::string platform() const { return runtime_->platform(); }

  uint64_t Malloc(uint64_t nbytes) {
    py::gil_scoped_release release;
    return Check(runtime_->Malloc(nbytes));
  }

  void Free(uint64_t addr) {
    py::gil_scoped_release release;
    Check(runtime_->Free(addr));
  }

  void MemcpyH2D(uint64_t dst, py::handle data) {
    BufferView view(data, /*writable=*/false);
    py::gil_scoped_release release;
    Check(runtime_->MemcpyToDevice(dst, view.data(), view.size()));
  }

  void MemcpyD2H(py::handle dst, uint64_t src) {
    BufferView view(dst, /*writable=*/true);
    py::gil_scoped_release release;
    Check(runtime_->MemcpyToHost(view.data(), src, view.size()));
  }

  uint32_t CreateStream() {
    py::gil_scoped_release release;
    return Check(runtime_->CreateStream());
  }

  void DestroyStream(uint32_t stream) {
    py::gil_scoped_release release;
    Check(runtime_->DestroyStream(stream));
  }

  py::bytes Launch(py::bytes kernel_ir, uint32_t block_dim, py::sequence args, uint32_t stream,
                   uint64_t max_cycles, bool record_timeline, const std::string& trace_dir,
                   const std::string& check, bool timing_only) {
    std::string ir = kernel_ir;  // copied: the GIL is released below
    std::vector<ArgValue> values = ConvertArgs(args);
    CheckLevel level = CheckLevel::kDefault;
    if (!check.empty() && !ParseCheckLevel(check, &level)) {
      throw std::runtime_error("[INVALID_ARGUMENT] check level '" + check +
                               "' is not off, warn, strict or strict-all");
    }
    std::string report;
    {
      py::gil_scoped_release release;
      LaunchSettings settings;
      settings.max_cycles = max_cycles;
      settings.record_timeline = record_timeline;
      settings.trace_dir = trace_dir;
      settings.check = level;
      settings.timing_only = timing_only;
      report = Check(runtime_->Launch(ir, block_dim, values, stream, settings));
    }
    return py::bytes(report);
  }

  void Synchronize(uint32_t stream) {
    py::gil_scoped_release release;
    Check(runtime_->Synchronize(stream));
  }

 private:
  std::unique_ptr<Runtime> runtime_;
};

}  // namespace
}  // namespace aicore::runtime

PYBIND11_MODULE(_aicore_native, m) {
  using aicore::runtime::PyRuntime;
  m.doc() = "Native runtime of the aicore simulator (embedded, or remote via AICORE_SIM_ADDRESS)";

  py::class_<PyRuntime>(m, "Runtime")
      .def(py::init<const std::string&, const std::string&>(), py::arg("platform"),
           py::arg("config_overrides") = "",
           "Opens a device of `platform`: in-process, or on the daemon named by "
           "AICORE_SIM_ADDRESS=HOST:PORT when that variable is set. `config_overrides`: "
           "figures over the platform's for this device only, in the platform file's text "
           "format (docs/timing-model.md \"Config overrides\").")
      .def_property_readonly("transport", &PyRuntime::transport)
      .def_property_readonly("platform", &PyRuntime::platform)
      .def("malloc", &PyRuntime::Malloc, py::arg("nbytes"))
      .def("free", &PyRuntime::Free, py::arg("addr"))
      .def("memcpy_h2d", &PyRuntime::MemcpyH2D, py::arg("dst_addr"), py::arg("data"),
           "Copies every byte of a C-contiguous buffer to device address dst_addr.")
      .def("memcpy_d2h", &PyRuntime::MemcpyD2H, py::arg("dst"), py::arg("src_addr"),
           "Fills the writable C-contiguous buffer dst (len(dst) bytes) from device address "
           "src_addr.")
      .def("create_stream", &PyRuntime::CreateStream)
      .def("destroy_stream", &PyRuntime::DestroyStream, py::arg("stream"))
      .def(
          "launch", &PyRuntime::Launch, py::arg("kernel_ir"), py::arg("block_dim"), py::arg("args"),
          py::arg("stream") = 0, py::arg("max_cycles") = 0, py::arg("record_timeline") = false,
          py::arg("trace_dir") = "", py::arg("check") = "", py::arg("timing_only") = false,
          "Runs a serialized aicore.ir.v1.Kernel; args are ('int'|'float'|'addr', value) "
          "tuples. Returns a serialized aicore.report.v1.LaunchReport (with one timeline "
          "record per pipe instruction when record_timeline is true). A non-empty trace_dir "
          "also writes msprof-style trace files to trace_dir/OPPROF_<kernel>_<n>/ on this host "
          "(docs/traces.md). check is off|warn|strict|strict-all, or empty for AICORE_SIM_CHECK or "
          "the transport's default (docs/checkers.md). timing_only skips the element math no "
          "scalar read needs: the full run's cycles, without its results (docs/timing_only.md).")
      .def("synchronize", &PyRuntime::Synchronize, py::arg("stream") = 0);

  m.def("list_platforms", [] { return aicore::runtime::Runtime::ListPlatforms(); });
}

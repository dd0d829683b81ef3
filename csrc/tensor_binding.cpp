// The Python binding of Tensor (cpuframe._dnnl.Tensor) and of the module
// functions about tensors: reorder counters, buffer ownership, the buffer pool.
#include <cstdint>
#include <string>
#include <utility>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "array_utils.hpp"
#include "ops.hpp"
#include "pool.hpp"
#include "tensor.hpp"

namespace cpuframe {

namespace {

void check_same_shape(const char* fn, const Tensor& a, const Tensor& b) {
    if (a.shape() != b.shape()) {
        throw py::value_error(std::string(fn) + ": expected tensors of the same shape, got " +
                              shape_str(a.shape()) + " and " + shape_str(b.shape()));
    }
}

template <class Body>
auto guarded(const char* fn, const Tensor& t, Body&& body) {
    return guard_dnnl(fn, [&] { return "tensor " + shape_str(t.shape()) + " " + t.format(); },
                      std::forward<Body>(body));
}

// The attributes the small-work path reads per op of every device array
// (shape, dtype, ...), as CPython getters: through pybind11's dispatcher and
// type casters each read cost ~600 instructions, here ~100.
const Tensor* getter_self(PyObject* self) {
    const TensorPtr* held = tensor_holder(self);
    if (held == nullptr) PyErr_SetString(PyExc_TypeError, "Tensor: not initialized");
    return held == nullptr ? nullptr : held->get();
}

PyObject* get_shape(PyObject* self, void*) {
    const Tensor* t = getter_self(self);
    if (t == nullptr) return nullptr;
    const Shape& shape = t->shape();
    PyObject* s = PyTuple_New(static_cast<Py_ssize_t>(shape.size()));
    if (s == nullptr) return nullptr;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        PyObject* d = PyLong_FromLongLong(static_cast<long long>(shape[i]));
        if (d == nullptr) {
            Py_DECREF(s);
            return nullptr;
        }
        PyTuple_SET_ITEM(s, static_cast<Py_ssize_t>(i), d);
    }
    return s;
}

PyObject* get_ndim(PyObject* self, void*) {
    const Tensor* t = getter_self(self);
    return t == nullptr ? nullptr : PyLong_FromLong(t->ndim());
}

PyObject* get_size(PyObject* self, void*) {
    const Tensor* t = getter_self(self);
    return t == nullptr ? nullptr : PyLong_FromLongLong(static_cast<long long>(t->size()));
}

PyObject* get_dtype(PyObject* self, void*) {
    const Tensor* t = getter_self(self);
    if (t == nullptr) return nullptr;
    try {
        return numpy_dtype(t->dtype()).release().ptr();
    } catch (py::error_already_set& e) {
        e.restore();
        return nullptr;
    }
}

PyObject* get_storage_dtype(PyObject* self, void*) {
    const Tensor* t = getter_self(self);
    if (t == nullptr) return nullptr;
    // (interned once, never freed)
    static PyObject* const bf16 = PyUnicode_InternFromString("bfloat16");
    static PyObject* const f32 = PyUnicode_InternFromString("float32");
    PyObject* s = t->dtype() == memory::data_type::bf16 ? bf16 : f32;
    if (s == nullptr) return PyErr_NoMemory();  // (interning failed at the first call)
    Py_INCREF(s);
    return s;
}

PyObject* get_is_plain(PyObject* self, void*) {
    const Tensor* t = getter_self(self);
    if (t == nullptr) return nullptr;
    try {
        return PyBool_FromLong(t->is_plain() ? 1 : 0);
    } catch (const std::exception& e) {  // (a desc query: cannot fail for a made tensor)
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return nullptr;
    }
}

PyGetSetDef g_fast_getters[] = {
    {"shape", get_shape, nullptr, "The logical shape (NumPy order).", nullptr},
    {"ndim", get_ndim, nullptr, "The number of dimensions.", nullptr},
    {"size", get_size, nullptr, "The number of elements.", nullptr},
    {"dtype", get_dtype, nullptr,
     "The logical NumPy dtype: float32 (also for bfloat16 storage, which NumPy lacks).",
     nullptr},
    {"storage_dtype", get_storage_dtype, nullptr,
     "How the buffer stores the values: 'float32' or 'bfloat16' (mixed_bf16 activations).",
     nullptr},
    {"is_plain", get_is_plain, nullptr, "True for plain row-major (C order) layout.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

void add_fast_getters(py::handle cls) {
    auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
    for (PyGetSetDef* def = g_fast_getters; def->name != nullptr; ++def) {
        py::object descr = py::reinterpret_steal<py::object>(PyDescr_NewGetSet(type, def));
        if (!descr) throw py::error_already_set();
        if (PyObject_SetAttrString(cls.ptr(), def->name, descr.ptr()) != 0) {
            throw py::error_already_set();
        }
    }
}

}  // namespace

void register_tensor(py::module_& m) {
    m.def(
        "data_ptrs",
        [](const py::tuple& tensors) {
            py::tuple out(tensors.size());
            for (std::size_t i = 0; i < tensors.size(); ++i) {
                const TensorPtr* held = tensor_holder(tensors[i].ptr());
                if (held == nullptr) {
                    throw py::type_error("data_ptrs: expected a tuple of Tensors, got an "
                                         "element of type " +
                                         std::string(py::str(py::type::handle_of(tensors[i])
                                                                 .attr("__name__"))));
                }
                out[i] = reinterpret_cast<std::uintptr_t>((*held)->data());
            }
            return out;
        },
        py::arg("tensors"),
        "The data_ptr of each Tensor of a tuple, in one call (a kept plan of views "
        "checks its buffers by them: a layout adopted in place moves a tensor to a "
        "new buffer).");
    m.def("plain_views", &plain_views, py::arg("arrays"),
          "The tuple arrays with every plain float32 Tensor replaced by its plain_view "
          "(ndarrays kept as they are), or None when some entry is neither: the inputs "
          "of an op that takes the NumPy path on the Intel64 device, read in one call.");
    py::class_<Tensor, TensorPtr> cls(m, "Tensor", R"doc(
A oneDNN memory: a float32 buffer and the layout of its elements.

The array type of the Intel64 device (``cpuframe.backends.intel64.mdarray`` adds
the NumPy protocols). The layout is plain row-major ("abcd"), a permutation
("acdb" = NHWC) or blocked ("aBcd16b"), as the primitive that wrote it chose.
Create one with Tensor.from_numpy(a); read it back with to_numpy().
)doc");
    cls.def(py::init([](const py::handle& a) { return Tensor::from_numpy(a); }), py::arg("a"),
            "mdarray(a): a copy of the float32 ndarray a in plain row-major layout (as "
            "Tensor.from_numpy; iDeep's mdarray(ndarray) constructor).")
        .def_static("from_numpy", &Tensor::from_numpy, py::arg("a"),
                    "A copy of the float32 ndarray a in plain row-major layout.")
        .def("to_numpy", &Tensor::to_numpy,
             "A new C-contiguous float32 ndarray of the logical shape (reordered from "
             "the tensor's layout).")
        .def_property_readonly("nbytes", &Tensor::nbytes,
                               "Bytes of the physical buffer (padding included).")
        .def_property_readonly("format", &Tensor::format,
                               "The layout, e.g. 'abcd', 'acdb', 'aBcd16b'.")
        .def_property_readonly("has_padding", &Tensor::has_padding,
                               "True when a blocked layout pads some axis.")
        .def_property_readonly("desc_key", [](const Tensor& t) { return desc_key(t.desc()); },
                               "Everything the memory descriptor says, as text.")
        .def_property_readonly("data_ptr", [](const Tensor& t) {
            return reinterpret_cast<std::uintptr_t>(t.data());
        })
        .def("raw_view", &raw_view,
             "A 1-D float32 ndarray over the physical buffer (padding included), in "
             "layout order; it keeps the buffer alive.")
        .def("plain_view", &plain_view,
             "An ndarray of the logical shape over the buffer of a plain float32 tensor "
             "(no copy; it keeps the buffer alive and may be written through), or None "
             "for other layouts and storage types.")
        .def("same_layout", &Tensor::same_layout, py::arg("other"),
             "True when both tensors have the same memory descriptor.")
        .def(
            "reorder_to_layout_of",
            [](const Tensor& t, const Tensor& other) {
                check_same_shape("Tensor.reorder_to_layout_of", t, other);
                return guarded("Tensor.reorder_to_layout_of", t,
                               [&] { return t.reordered(other.desc()); });
            },
            py::arg("other"), "A new tensor with these values in other's layout.")
        .def(
            "reorder_inplace_to_layout_of",
            [](Tensor& t, const Tensor& other) {
                check_same_shape("Tensor.reorder_inplace_to_layout_of", t, other);
                guarded("Tensor.reorder_inplace_to_layout_of", t,
                        [&] { t.reorder_inplace(other.desc()); });
            },
            py::arg("other"), "Re-lays this tensor out like other (same object, new buffer).")
        .def(
            "reorder",
            [](const Tensor& t, const std::string& format) {
                return guarded("Tensor.reorder", t, [&] {
                    return t.reordered(permuted_desc(t.desc().get_dims(), format));
                });
            },
            py::arg("format"),
            "A new tensor in the plain format given by axis letters, e.g. 'acdb'.")
        .def(
            "reorder_inplace",
            [](Tensor& t, const std::string& format) {
                guarded("Tensor.reorder_inplace", t, [&] {
                    t.reorder_inplace(permuted_desc(t.desc().get_dims(), format));
                });
            },
            py::arg("format"), "Re-lays this tensor out in a plain format, e.g. 'abcd'.")
        .def(
            "to_plain",
            [](const TensorPtr& t) {
                return guarded("Tensor.to_plain", *t, [&] {
                    const memory::desc plain = plain_desc(t->desc().get_dims());
                    return t->desc() == plain ? t : t->reordered(plain);
                });
            },
            "This tensor if it is plain, else a plain copy.")
        .def(
            "copy", [](const Tensor& t) { return guarded("Tensor.copy", t, [&] {
                return t.reordered(t.desc()); }); },
            "A copy in the same layout.")
        .def(
            "copy_from",
            [](Tensor& t, const py::handle& src) {
                // Any storage: the copy converts (a bf16 src is not made a
                // float32 copy first).
                TensorPtr s = as_tensor_any("Tensor.copy_from", "src", src);
                check_same_shape("Tensor.copy_from", t, *s);
                guarded("Tensor.copy_from", t, [&] { t.copy_from(*s); });
            },
            py::arg("src"),
            "Writes src (a Tensor or float32 ndarray of the same shape) into this "
            "tensor's buffer, converting to its layout and storage type.")
        .def("touch", &Tensor::touch,
             "Marks the buffer as written, as every write path of ours does (a kept "
             "bf16 copy of it is made again on next use).")
        .def("zero_padding", &Tensor::zero_padding,
             "Rewrites zeros into the padding of a blocked layout.")
        .def_static("zeros_like", &Tensor::zeros_like, py::arg("t"),
                    "A zero tensor with t's shape and layout.")
        .def_static("empty_like", &Tensor::empty_like, py::arg("t"),
                    "An uninitialized tensor with t's shape and layout.");
    set_tensor_type(cls.ptr());
    add_fast_getters(cls);

    m.def(
        "to_bfloat16",
        [](const py::object& x) {
            TensorPtr t = as_tensor_any("to_bfloat16", "x", x);
            return guarded("to_bfloat16", *t,
                           [&] { return t->as_data_type(memory::data_type::bf16); });
        },
        py::arg("x"),
        "x (a Tensor or float32 ndarray) stored as bfloat16, rounded to nearest even: x "
        "itself when it already is, else a copy in its layout (plain for blocked ones).");
    m.def(
        "to_float32",
        [](const py::object& x) { return as_tensor("to_float32", "x", x); },
        py::arg("x"),
        "x stored as float32: a float32 Tensor itself, a bfloat16 one converted (exactly).");
    m.def("reorder_stats", [] {
        py::dict d;
        d["count"] = reorder_counters().count.load();
        d["bytes"] = reorder_counters().bytes.load();
        return d;
    }, "Reorders executed since the start (or the last reset): count and bytes written.");
    m.def(
        "owns_buffer",
        [](const py::object& obj) {
            return is_tensor(obj) && obj.cast<TensorPtr>()->owns_buffer_exclusively();
        },
        py::arg("x"),
        "Whether x is a Tensor that alone holds its buffer (allocated here, no view "
        "shares it); False for anything else.");
    m.def("tensor_pool_stats", [] {
        const BufferPool::Stats st = buffer_pool().stats();
        py::dict d;
        d["cached_bytes"] = st.cached_bytes;
        d["cached_buffers"] = st.cached_buffers;
        d["limit_bytes"] = st.limit_bytes;
        d["hits"] = st.hits;
        d["misses"] = st.misses;
        d["live_bytes"] = st.live_bytes;
        d["peak_live_bytes"] = st.peak_live_bytes;
        d["peak_bound"] = st.peak_bound;
        return d;
    }, "The pool of freed Tensor buffers (>= 128 KiB) kept for reuse: bytes and buffers "
       "cached, the limit, how many allocations it served (hits) or not (misses), and the "
       "bytes of Tensor buffers in use now and at most since the last "
       "reset_tensor_peak_bytes().");
    m.def("set_tensor_pool_peak_bound", [](bool on) { buffer_pool().set_peak_bound(on); },
          py::arg("on"),
          "Whether huge cached buffers (>= 4 MiB) are let go so that the huge bytes in use "
          "plus cached never exceed the most ever in use (default on: the pool does not "
          "raise peak memory; off: fewer fresh pages per step, more memory; also the "
          "environment variable CPUFRAME_TENSOR_POOL_BOUND=0).");
    m.def("reset_tensor_peak_bytes", [] { buffer_pool().reset_peak(); },
          "Restarts tensor_pool_stats()['peak_live_bytes'] from the bytes in use now.");
    m.def("set_tensor_pool_limit", [](std::size_t bytes) { buffer_pool().set_limit(bytes); },
          py::arg("bytes"),
          "Caps the bytes of freed Tensor buffers kept for reuse (0 disables the pool; "
          "default 4 GiB, or the environment variable CPUFRAME_TENSOR_POOL_MB).");
    m.def("release_tensor_pool", [] { buffer_pool().release(); },
          "Returns every cached Tensor buffer to the system and restarts the high-water "
          "mark (the most bytes in use at once, which bytes in use plus cached never "
          "exceed) from the bytes in use now.");
    m.def("reset_reorder_stats", [] {
        reorder_counters().count = 0;
        reorder_counters().bytes = 0;
    }, "Sets the reorder counters to zero.");
}

}  // namespace cpuframe

// The core's per-op bookkeeping in C: FunctionNode.apply and the Variable
// an op's output becomes (Variable._of_output).
//
// cpuframe/function_node.py's ``FunctionNode._apply_python`` is the
// definition and the reference (and what a build without this module
// runs). This file does what it does for the common case, in the same
// order, writing the same attributes with the same values; anything else
// hands the whole call to the Python definition before any work is done:
// a thread recording for @static_graph, a registered function hook,
// inputs other than exact Variables, Parameters, NumPy arrays and
// mdarrays, a class whose hook look-up is not the default. Python code the
// op owns (its type check, its routed forward) is called as the Python
// apply calls it. tests/test_native_core.py compares the two.
//
// Its own small module, cpuframe._core (no oneDNN: importing cpuframe loads
// it without the kernels). Only the CPython API (3.9+); every call holds the
// GIL, and the state below is written by core_install() when
// cpuframe.function_node is imported (the mdarray type again when the oneDNN
// module loads), under the GIL.

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>  // (T_OBJECT_EX before Python 3.12)

#include <algorithm>
#include <functional>
#include <new>
#include <vector>

namespace {

struct CoreRefs {
    PyObject* variable_type = nullptr;       // cpuframe.variable.Variable
    PyObject* parameter_type = nullptr;      // cpuframe.variable.Parameter
    PyObject* node_type = nullptr;           // cpuframe.variable.VariableNode
    PyObject* ndarray_type = nullptr;        // numpy.ndarray
    PyObject* tensor_type = nullptr;         // cpuframe._dnnl.Tensor (mdarray)
    PyObject* trace_active = nullptr;        // cpuframe._trace.active (a list)
    PyObject* config = nullptr;              // the thread-local config
    PyObject* backward_state = nullptr;      // variable.backward_state
    PyObject* global_hooks = nullptr;        // function_hook._global
    PyObject* hooks_of = nullptr;            // function_hook.hooks_of
    PyObject* no_type_check = nullptr;       // FunctionNode.check_type_forward
    PyObject* light_type_check = nullptr;    // function_node._light_type_check
    PyObject* checked_signatures = nullptr;  // function_node._checked_signatures
    PyObject* check_nan = nullptr;           // variable._check_nan
    PyObject* cpu_device = nullptr;          // backend.cpu_device
    PyObject* device_of = nullptr;           // backend.get_device_from_array
    PyObject* is_array = nullptr;            // backend.is_array
    PyObject* apply_python = nullptr;        // FunctionNode._apply_python
    PyObject* forward_routed = nullptr;      // FunctionNode._forward_routed
    PyObject* default_on_device = nullptr;   // FunctionNode.intel64_on_device
    PyObject* no_intel64_route = nullptr;    // FunctionNode.forward_intel64
    PyObject* default_forward = nullptr;     // FunctionNode.forward
    PyObject* mixed_bf16 = nullptr;          // configuration.mixed_bf16
    PyObject* route_watch = nullptr;         // function_node._route_watch (a list)
    PyObject* run_route_off_device = nullptr;  // function_node._run_route_off_device
    PyObject* compute_python = nullptr;      // FunctionNode._compute_python
    PyObject* wants_route = nullptr;         // FunctionNode._wants_route_on_device
    PyObject* choose_off_device = nullptr;   // FunctionNode._choose_off_device
    PyObject* choose_on_device = nullptr;    // FunctionNode._choose_on_device
    PyObject* default_profitable_on_device = nullptr;  // FunctionNode.intel64_profitable_on_device
    PyObject* plain_arrays = nullptr;        // function_node._plain_arrays
    PyObject* size_rules = nullptr;          // _routing.SIZE_RULES: rule -> (op, factors)
    PyObject* routing_globals = nullptr;     // vars(_routing): its AUTO_MIN, looked up per call
    // the backward walk's
    PyObject* variable_globals = nullptr;    // vars(cpuframe.variable): its _node_backward,
                                             // _add_grad_arrays and backward_arrays_enabled,
                                             // looked up at each call (a test may patch them)
    PyObject* owns_buffer = nullptr;         // _temporaries.owns_buffer
    PyObject* base_accumulate = nullptr;     // FunctionNode.backward_accumulate
    PyObject* call_backward = nullptr;       // FunctionNode._call_backward
    PyObject* call_backward_arrays_now = nullptr;  // FunctionNode._call_backward_arrays_now
    PyObject* always = nullptr;              // 'always'
    PyObject* plain_views = nullptr;         // cpuframe._dnnl.plain_views (set_tensor_type)
    PyObject* never = nullptr;               // 'never'
    PyObject* autos = nullptr;               // 'auto'
    PyObject* empty = nullptr;               // ()
    PyObject* zero = nullptr;                // 0
    PyObject* one = nullptr;                 // 1
};

CoreRefs g;
bool g_installed = false;

// interned attribute names
PyObject *s_array, *s_requires_grad_, *s_node, *s_grad_var, *s_loss_scale, *s_variable, *s_name,
    *s_creator_node, *s_rank, *s_data, *s_requires_grad, *s_shape, *s_dtype, *s_hooks,
    *s_local_hooks, *s_function_hooks, *s_check_type_forward, *s_type_check, *s_untracked,
    *s_skippable, *s_type_check_attrs, *s_check_by_signature, *s_retained_for_backward,
    *s_in_retain, *s_out_retain, *s_forward_routed, *s_debug, *s_label, *s_enable_backprop,
    *s_inputs, *s_outputs, *s_output_meta, *s_retained_output_data,
    *s_intel64_on_device, *s_forward_intel64, *s_forward, *s_forward_cpu, *s_dtype_cfg,
    *s_forward_dtype, *s_bf16_forward, *s_route_choice, *s_choose_off_device, *s_use_ideep,
    *s_intel64_profitable, *s_dict, *s_wants_route, *s_profitable_on_device, *s_supports,
    *s_choose_on_device, *s_plain_inputs, *s_is_plain, *s_storage_dtype, *s_choose_off_rest,
    *s_lazy_grad_sum, *s_accepts_donated, *s_donated_out, *s_donated_in, *s_call_backward,
    *s_call_backward_arrays_now, *s_backward_arrays, *s_backward_arrays_declined, *s_zero_output,
    *s_backward_accumulate, *s_node_backward_fn, *s_add_grad_arrays_fn,
    *s_backward_arrays_enabled, *s_flags, *s_writeable, *s_is_writeable_fn, *s_copy_grad_fn,
    *s_add_grads_fn, *s_size, *s_auto_min;

bool intern_names() {
    struct {
        PyObject** slot;
        const char* text;
    } names[] = {
        {&s_array, "_array"},
        {&s_requires_grad_, "_requires_grad"},
        {&s_node, "_node"},
        {&s_grad_var, "_grad_var"},
        {&s_loss_scale, "_loss_scale"},
        {&s_variable, "_variable"},
        {&s_name, "name"},
        {&s_creator_node, "creator_node"},
        {&s_rank, "rank"},
        {&s_data, "data"},
        {&s_requires_grad, "requires_grad"},
        {&s_shape, "shape"},
        {&s_size, "size"},
        {&s_auto_min, "AUTO_MIN"},
        {&s_dtype, "dtype"},
        {&s_hooks, "hooks"},
        {&s_local_hooks, "_local_function_hooks"},
        {&s_function_hooks, "_function_hooks"},
        {&s_check_type_forward, "check_type_forward"},
        {&s_type_check, "type_check"},
        {&s_untracked, "untracked"},
        {&s_skippable, "_check_skippable_in_backward"},
        {&s_type_check_attrs, "_type_check_attrs"},
        {&s_check_by_signature, "_check_by_signature"},
        {&s_retained_for_backward, "retained_for_backward"},
        {&s_in_retain, "_input_indexes_to_retain"},
        {&s_out_retain, "_output_indexes_to_retain"},
        {&s_forward_routed, "_forward_routed"},
        {&s_debug, "debug"},
        {&s_label, "label"},
        {&s_enable_backprop, "enable_backprop"},
        {&s_inputs, "inputs"},
        {&s_outputs, "outputs"},
        {&s_output_meta, "_output_meta"},
        {&s_retained_output_data, "_retained_output_data"},
        {&s_intel64_on_device, "intel64_on_device"},
        {&s_forward_intel64, "forward_intel64"},
        {&s_forward, "forward"},
        {&s_forward_cpu, "forward_cpu"},
        {&s_dtype_cfg, "dtype"},
        {&s_forward_dtype, "_forward_dtype"},
        {&s_bf16_forward, "_bf16_forward"},
        {&s_route_choice, "_route_choice"},
        {&s_choose_off_device, "_choose_off_device"},
        {&s_use_ideep, "use_ideep"},
        {&s_intel64_profitable, "intel64_profitable"},
        {&s_dict, "__dict__"},
        {&s_wants_route, "_wants_route_on_device"},
        {&s_profitable_on_device, "intel64_profitable_on_device"},
        {&s_supports, "intel64_supports"},
        {&s_choose_on_device, "_choose_on_device"},
        {&s_plain_inputs, "_plain_inputs"},
        {&s_is_plain, "is_plain"},
        {&s_storage_dtype, "storage_dtype"},
        {&s_choose_off_rest, "_choose_off_device_rest"},
        {&s_lazy_grad_sum, "lazy_grad_sum"},
        {&s_accepts_donated, "accepts_donated_grads"},
        {&s_donated_out, "_donated_grad_outputs"},
        {&s_donated_in, "_donated_grad_inputs"},
        {&s_call_backward, "_call_backward"},
        {&s_call_backward_arrays_now, "_call_backward_arrays_now"},
        {&s_backward_arrays, "backward_arrays"},
        {&s_backward_arrays_declined, "_backward_arrays_declined"},
        {&s_zero_output, "_zero_output"},
        {&s_backward_accumulate, "backward_accumulate"},
        {&s_node_backward_fn, "_node_backward"},
        {&s_add_grad_arrays_fn, "_add_grad_arrays"},
        {&s_backward_arrays_enabled, "backward_arrays_enabled"},
        {&s_flags, "flags"},
        {&s_writeable, "writeable"},
        {&s_is_writeable_fn, "_is_writeable"},
        {&s_copy_grad_fn, "_copy_grad"},
        {&s_add_grads_fn, "_add_grads"},
    };
    for (auto& n : names) {
        if (*n.slot == nullptr) {
            *n.slot = PyUnicode_InternFromString(n.text);
            if (*n.slot == nullptr) return false;
        }
    }
    return true;
}

// An owned reference released at scope exit.
struct Ref {
    PyObject* p = nullptr;
    Ref() = default;
    explicit Ref(PyObject* o) : p(o) {}
    Ref(const Ref&) = delete;
    Ref& operator=(const Ref&) = delete;
    ~Ref() { Py_XDECREF(p); }
    void reset(PyObject* o) {
        Py_XDECREF(p);
        p = o;
    }
    PyObject* release() {
        PyObject* o = p;
        p = nullptr;
        return o;
    }
    explicit operator bool() const { return p != nullptr; }
};

// getattr(obj, name) truthiness: 1, 0, or -1 with an exception set.
int attr_true(PyObject* obj, PyObject* name) {
    PyObject* v = PyObject_GetAttr(obj, name);
    if (v == nullptr) return -1;
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

// ``cls.name`` for a class attribute that is a plain value or a function
// (what the class and its bases define: the type's method cache, without
// the metatype's descriptor protocol); a new reference or nullptr.
PyObject* class_attr(PyObject* cls, PyObject* name) {
    PyObject* v = _PyType_Lookup(reinterpret_cast<PyTypeObject*>(cls), name);
    if (v == nullptr) return PyObject_GetAttr(cls, name);  // (its error)
    Py_INCREF(v);
    return v;
}

// A threading.local (the configuration, the backward state) read for this
// thread: its instance dictionary fetched once, then each key as
// ``obj.key`` finds it (the dictionary's value, else the class's, unless
// the class has a descriptor there: the attribute protocol answers).
struct LocalView {
    PyObject* obj;
    PyObject* dict = nullptr;
    explicit LocalView(PyObject* o) : obj(o) {}
    LocalView(const LocalView&) = delete;
    LocalView& operator=(const LocalView&) = delete;
    ~LocalView() { Py_XDECREF(dict); }

    // getattr(obj, key): a new reference or nullptr
    PyObject* get(PyObject* key) {
        if (dict == nullptr) {
            // (first: fetching it may run the class's __init__ for a new
            // thread, Python code)
            dict = PyObject_GetAttr(obj, s_dict);
            if (dict == nullptr) return nullptr;
            if (!PyDict_Check(dict)) {
                Py_CLEAR(dict);
                return PyObject_GetAttr(obj, key);
            }
        }
        PyObject* cls_value = _PyType_Lookup(Py_TYPE(obj), key);
        if (cls_value != nullptr && Py_TYPE(cls_value)->tp_descr_get != nullptr)
            return PyObject_GetAttr(obj, key);
        PyObject* v = PyDict_GetItemWithError(dict, key);
        if (v == nullptr) {
            if (PyErr_Occurred()) return nullptr;
            if (cls_value == nullptr) return PyObject_GetAttr(obj, key);  // (its error)
            v = cls_value;
        }
        Py_INCREF(v);
        return v;
    }

    // bool(getattr(obj, key)): 1, 0, or -1 with an exception set
    int truth(PyObject* key) {
        PyObject* v = get(key);
        if (v == nullptr) return -1;
        int r = PyObject_IsTrue(v);
        Py_DECREF(v);
        return r;
    }
};

int set_attr(PyObject* obj, PyObject* name, PyObject* value) {
    return PyObject_SetAttr(obj, name, value);
}

// -- Variable's and VariableNode's __slots__, read and written at the
// offsets their member descriptors give (an exact Variable, Parameter or
// VariableNode: a subclass may define them otherwise); -1: through the
// attribute protocol (Parameter's _array is a property of its own).
enum VarSlot { V_ARRAY, V_REQUIRES_GRAD, V_NODE, V_GRAD_VAR, V_LOSS_SCALE, V_COUNT };
enum NodeSlot {
    N_VARIABLE,
    N_NAME,
    N_CREATOR_NODE,
    N_RANK,
    N_DATA,
    N_REQUIRES_GRAD,
    N_SHAPE,
    N_DTYPE,
    N_COUNT
};
PyObject** const kVarNames[V_COUNT] = {&s_array, &s_requires_grad_, &s_node, &s_grad_var,
                                       &s_loss_scale};
PyObject** const kNodeNames[N_COUNT] = {&s_variable, &s_name, &s_creator_node, &s_rank,
                                        &s_data, &s_requires_grad, &s_shape, &s_dtype};
Py_ssize_t g_var_off[V_COUNT];
Py_ssize_t g_param_off[V_COUNT];
Py_ssize_t g_node_off[N_COUNT];

// The offset of the object slot ``name`` resolves to on ``type``, or -1.
Py_ssize_t slot_offset(PyObject* type, PyObject* name) {
    PyObject* d = PyObject_GetAttr(type, name);
    if (d == nullptr) {
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t off = -1;
#ifdef Py_T_OBJECT_EX
    const int object_ex = Py_T_OBJECT_EX;
    const int readonly = Py_READONLY;
#else
    const int object_ex = T_OBJECT_EX;
    const int readonly = READONLY;
#endif
    if (Py_TYPE(d) == &PyMemberDescr_Type) {
        PyMemberDef* m = reinterpret_cast<PyMemberDescrObject*>(d)->d_member;
        if (m->type == object_ex && !(m->flags & readonly)) off = m->offset;
    }
    Py_DECREF(d);
    return off;
}

Py_ssize_t var_offset(PyObject* var, int k) {
    PyObject* t = reinterpret_cast<PyObject*>(Py_TYPE(var));
    if (t == g.variable_type) return g_var_off[k];
    if (t == g.parameter_type) return g_param_off[k];
    return -1;
}

PyObject** slot_at(PyObject* obj, Py_ssize_t off) {
    return reinterpret_cast<PyObject**>(reinterpret_cast<char*>(obj) + off);
}

// getattr(obj, name) at a known slot offset (off >= 0; an unset slot, and
// off < 0, through the attribute protocol): a new reference or nullptr.
PyObject* slot_get(PyObject* obj, Py_ssize_t off, PyObject* name) {
    if (off >= 0) {
        PyObject* v = *slot_at(obj, off);
        if (v != nullptr) {
            Py_INCREF(v);
            return v;
        }
    }
    return PyObject_GetAttr(obj, name);
}

// getattr(var, name of slot k)
PyObject* var_get(PyObject* var, int k) {
    return slot_get(var, var_offset(var, k), *kVarNames[k]);
}

// setattr(obj, name, value) at a known slot offset (off >= 0) or through
// the attribute protocol.
int slot_set(PyObject* obj, Py_ssize_t off, PyObject* name, PyObject* value) {
    if (off < 0) return PyObject_SetAttr(obj, name, value);
    PyObject** p = slot_at(obj, off);
    PyObject* old = *p;
    Py_INCREF(value);
    *p = value;
    Py_XDECREF(old);
    return 0;
}

int var_set(PyObject* var, int k, PyObject* value) {
    return slot_set(var, var_offset(var, k), *kVarNames[k], value);
}

Py_ssize_t node_offset(PyObject* node, int k) {
    return reinterpret_cast<PyObject*>(Py_TYPE(node)) == g.node_type ? g_node_off[k] : -1;
}

PyObject* node_get(PyObject* node, int k) {
    return slot_get(node, node_offset(node, k), *kNodeNames[k]);
}

int node_set(PyObject* node, int k, PyObject* value) {
    return slot_set(node, node_offset(node, k), *kNodeNames[k], value);
}

void find_slot_offsets() {
    for (int k = 0; k < V_COUNT; ++k) {
        g_var_off[k] = slot_offset(g.variable_type, *kVarNames[k]);
        g_param_off[k] = slot_offset(g.parameter_type, *kVarNames[k]);
    }
    for (int k = 0; k < N_COUNT; ++k) g_node_off[k] = slot_offset(g.node_type, *kNodeNames[k]);
}

// Variable._of_output(array, requires_grad): a new reference or nullptr.
PyObject* of_output(PyObject* array, PyObject* requires_grad) {
    PyTypeObject* vt = reinterpret_cast<PyTypeObject*>(g.variable_type);
    Ref var(PyBaseObject_Type.tp_new(vt, g.empty, nullptr));
    if (!var) return nullptr;
    if (var_set(var.p, V_ARRAY, array) < 0 || var_set(var.p, V_REQUIRES_GRAD, requires_grad) < 0)
        return nullptr;
    PyTypeObject* nt = reinterpret_cast<PyTypeObject*>(g.node_type);
    Ref node(PyBaseObject_Type.tp_new(nt, g.empty, nullptr));
    if (!node) return nullptr;
    if (var_set(var.p, V_NODE, node.p) < 0) return nullptr;
    Ref wr(PyWeakref_NewRef(var.p, nullptr));
    if (!wr) return nullptr;
    if (node_set(node.p, N_VARIABLE, wr.p) < 0 || node_set(node.p, N_NAME, Py_None) < 0 ||
        node_set(node.p, N_CREATOR_NODE, Py_None) < 0 || node_set(node.p, N_RANK, g.zero) < 0 ||
        node_set(node.p, N_DATA, Py_None) < 0 ||
        node_set(node.p, N_REQUIRES_GRAD, requires_grad) < 0)
        return nullptr;
    if (array == Py_None) {
        if (node_set(node.p, N_SHAPE, Py_None) < 0 || node_set(node.p, N_DTYPE, Py_None) < 0)
            return nullptr;
    } else {
        Ref shape(PyObject_GetAttr(array, s_shape));
        if (!shape) return nullptr;
        if (!PyTuple_CheckExact(shape.p)) {
            shape.reset(PySequence_Tuple(shape.p));
            if (!shape) return nullptr;
        }
        if (node_set(node.p, N_SHAPE, shape.p) < 0) return nullptr;
        Ref dtype(PyObject_GetAttr(array, s_dtype));
        if (!dtype || node_set(node.p, N_DTYPE, dtype.p) < 0) return nullptr;
    }
    if (var_set(var.p, V_GRAD_VAR, Py_None) < 0 || var_set(var.p, V_LOSS_SCALE, Py_None) < 0)
        return nullptr;
    return var.release();
}

// TypeError(fmt % (self.label, type(obj).__name__)) as the Python apply
// words it.
void forward_type_error(PyObject* self, const char* fmt, PyObject* obj) {
    Ref label(PyObject_GetAttr(self, s_label));
    if (!label) return;
    Ref name(PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(obj)), "__name__"));
    if (!name) return;
    PyErr_Format(PyExc_TypeError, fmt, label.p, name.p);
}

PyObject* fallback(PyObject* self, PyObject* inputs) {
    return PyObject_CallFunctionObjArgs(g.apply_python, self, inputs, nullptr);
}

// The type check's signature path (FunctionNode._check_by_signature): the
// key built and looked up here; a miss (or a key that cannot be built)
// runs the Python method, which checks and remembers the key.
int check_by_signature(PyObject* self, PyObject* cls, PyObject* attrs, PyObject* in_data) {
    Py_ssize_t n = PyTuple_GET_SIZE(in_data);
    Ref key(PyTuple_New(1 + 3 * n));
    bool built = static_cast<bool>(key);
    if (built) {
        Py_INCREF(cls);
        PyTuple_SET_ITEM(key.p, 0, cls);
        for (Py_ssize_t i = 0; i < n && built; ++i) {
            PyObject* x = PyTuple_GET_ITEM(in_data, i);
            PyObject* t = reinterpret_cast<PyObject*>(Py_TYPE(x));
            Py_INCREF(t);
            PyTuple_SET_ITEM(key.p, 1 + 3 * i, t);
            PyObject* shape = PyObject_GetAttr(x, s_shape);
            if (shape == nullptr) {
                built = false;
                break;
            }
            PyTuple_SET_ITEM(key.p, 2 + 3 * i, shape);
            PyObject* dtype = PyObject_GetAttr(x, s_dtype);
            if (dtype == nullptr) {
                built = false;
                break;
            }
            PyTuple_SET_ITEM(key.p, 3 + 3 * i, dtype);
        }
    }
    if (built) {
        Ref seq(PySequence_Tuple(attrs));
        if (!seq) {
            built = false;
        } else if (PyTuple_GET_SIZE(seq.p) > 0) {
            Py_ssize_t m = PyTuple_GET_SIZE(seq.p);
            Ref values(PyTuple_New(m));
            for (Py_ssize_t j = 0; values && j < m; ++j) {
                PyObject* v = PyObject_GetAttr(self, PyTuple_GET_ITEM(seq.p, j));
                if (v == nullptr) {
                    values.reset(nullptr);
                    break;
                }
                PyTuple_SET_ITEM(values.p, j, v);
            }
            if (!values) {
                built = false;
            } else {
                key.reset(PyTuple_Pack(2, key.p, values.p));
                built = static_cast<bool>(key);
            }
        }
    }
    if (built) {
        int found = PyDict_Contains(g.checked_signatures, key.p);
        if (found == 1) return 0;
        if (found < 0) built = false;
    }
    if (!built) {
        // (what Python's try/except lets through is raised again below)
        if (PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError) &&
                !PyErr_ExceptionMatches(PyExc_TypeError))
                return -1;
            PyErr_Clear();
        }
    }
    Ref r(PyObject_CallMethodObjArgs(self, s_check_by_signature, cls, attrs, in_data, nullptr));
    return r ? 0 : -1;
}

// ``a or b`` of Python: a new reference to the first true value, else to
// the last.
PyObject* py_or(PyObject* const* values, int n) {
    for (int i = 0; i < n - 1; ++i) {
        int t = PyObject_IsTrue(values[i]);
        if (t < 0) return nullptr;
        if (t) {
            Py_INCREF(values[i]);
            return values[i];
        }
    }
    Py_INCREF(values[n - 1]);
    return values[n - 1];
}

constexpr Py_ssize_t kMaxFast = 8;

// self.forward(data), as the Python method calls it (an instance's own
// forward included); FunctionNode.forward on NumPy arrays only is
// forward_cpu, called directly.
PyObject* call_forward(PyObject* self, PyObject* data) {
    Ref bound(PyObject_GetAttr(self, s_forward));
    if (!bound) return nullptr;
    if (PyMethod_Check(bound.p) && PyMethod_GET_FUNCTION(bound.p) == g.default_forward &&
        PyMethod_GET_SELF(bound.p) == self) {
        bool numpy_only = true;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(data) && numpy_only; ++i)
            numpy_only =
                reinterpret_cast<PyObject*>(Py_TYPE(PyTuple_GET_ITEM(data, i))) == g.ndarray_type;
        if (numpy_only) return PyObject_CallMethodOneArg(self, s_forward_cpu, data);
    }
    return PyObject_CallOneArg(bound.p, data);
}

// ``value == text`` for a str value (text interned): identity first.
bool str_eq(PyObject* value, PyObject* text) {
    if (value == text) return true;
    return PyUnicode_CheckExact(value) && PyUnicode_Compare(value, text) == 0;
}

// A factor of a size_rule (_routing.size_rule): ``inputs[i].size`` (an
// int), ``inputs[i].shape[axis]`` (an (i, axis) pair) or
// ``getattr(self, name).size`` (a str), for NumPy arrays and mdarrays; 0
// with ``*out`` set, 1 where the Python rule must answer (another array
// type, an index out of range, ...: its answer or its error), -1 with an
// exception set.
int size_factor(PyObject* self, PyObject* in_data, PyObject* f, long long* out) {
    PyObject* x;
    Ref held;
    if (PyUnicode_CheckExact(f)) {
        held.reset(PyObject_GetAttr(self, f));
        if (!held) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
            PyErr_Clear();
            return 1;
        }
        x = held.p;
    } else {
        if (!PyLong_CheckExact(f) && !(PyTuple_CheckExact(f) && PyTuple_GET_SIZE(f) == 2))
            return 1;
        PyObject* index = PyLong_CheckExact(f) ? f : PyTuple_GET_ITEM(f, 0);
        Py_ssize_t i = PyLong_AsSsize_t(index);
        if (i == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 1;
        }
        if (i < 0 || i >= PyTuple_GET_SIZE(in_data)) return 1;
        x = PyTuple_GET_ITEM(in_data, i);
    }
    PyObject* t = reinterpret_cast<PyObject*>(Py_TYPE(x));
    if (t != g.ndarray_type && t != g.tensor_type) return 1;
    Ref v;
    if (PyTuple_CheckExact(f)) {
        Ref shape(PyObject_GetAttr(x, s_shape));
        if (!shape) return -1;
        Py_ssize_t axis = PyLong_AsSsize_t(PyTuple_GET_ITEM(f, 1));
        if (axis == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 1;
        }
        if (!PyTuple_Check(shape.p) || axis < 0 || axis >= PyTuple_GET_SIZE(shape.p)) return 1;
        v.reset(PyTuple_GET_ITEM(shape.p, axis));
        Py_INCREF(v.p);
    } else {
        v.reset(PyObject_GetAttr(x, s_size));
        if (!v) return -1;
    }
    if (!PyLong_Check(v.p)) return 1;
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(v.p, &overflow);
    if (overflow || n < 0 || (n == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 1;
    }
    *out = n;
    return 0;
}

// The class's size rule ``name`` (intel64_profitable or
// intel64_profitable_on_device) asked of ``in_data``: a rule made by
// _routing.size_rule is read here, as data, with its Python function's
// answer (AUTO_MIN read now); any other rule, or a case the data does not
// cover, is called. A new reference (the answer) or nullptr.
PyObject* ask_size_rule(PyObject* self, PyObject* name, PyObject* in_data) {
    // (looked up as the call looks it up: an instance's own attribute, a
    // descriptor, anything but the class's size_rule function is called)
    Ref bound(PyObject_GetAttr(self, name));
    if (!bound) return nullptr;
    if (!PyMethod_Check(bound.p) || PyMethod_GET_SELF(bound.p) != self)
        return PyObject_CallOneArg(bound.p, in_data);
    PyObject* spec = PyDict_GetItemWithError(g.size_rules, PyMethod_GET_FUNCTION(bound.p));
    if (spec == nullptr) {
        if (PyErr_Occurred()) return nullptr;
        return PyObject_CallOneArg(bound.p, in_data);
    }
    // (held: an attribute read or AUTO_MIN's __getitem__ below may run code
    // that changes SIZE_RULES)
    Py_INCREF(spec);
    Ref held_spec(spec);
    if (!PyTuple_CheckExact(spec) || PyTuple_GET_SIZE(spec) != 2 ||
        !PyTuple_CheckExact(PyTuple_GET_ITEM(spec, 1)))
        return PyObject_CallOneArg(bound.p, in_data);
    PyObject* op = PyTuple_GET_ITEM(spec, 0);
    PyObject* factors = PyTuple_GET_ITEM(spec, 1);
    if (op == Py_None && PyTuple_GET_SIZE(factors) == 0) Py_RETURN_FALSE;
    long long n = 1;
    bool python = !PyTuple_CheckExact(in_data);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(factors) && !python; ++i) {
        long long v = 0;
        int r = size_factor(self, in_data, PyTuple_GET_ITEM(factors, i), &v);
        if (r < 0) return nullptr;
        if (r > 0 || __builtin_mul_overflow(n, v, &n)) python = true;
    }
    PyObject* table = python ? nullptr : PyDict_GetItemWithError(g.routing_globals, s_auto_min);
    if (table == nullptr) {
        if (PyErr_Occurred()) return nullptr;
        return PyObject_CallOneArg(bound.p, in_data);
    }
    Py_INCREF(table);
    Ref held_table(table);
    Ref threshold(PyObject_GetItem(table, op));
    if (!threshold) {
        if (!PyErr_ExceptionMatches(PyExc_KeyError)) return nullptr;
        PyErr_Clear();
        return PyObject_CallOneArg(bound.p, in_data);  // (its KeyError)
    }
    if (PyLong_CheckExact(threshold.p)) {
        int overflow = 0;
        long long t = PyLong_AsLongLongAndOverflow(threshold.p, &overflow);
        if (!overflow && !(t == -1 && PyErr_Occurred())) return PyBool_FromLong(n >= t);
        PyErr_Clear();
    }
    Ref count(PyLong_FromLongLong(n));
    if (!count) return nullptr;
    return PyObject_RichCompare(count.p, threshold.p, Py_GE);
}

PyObject* forward_routed_device(PyObject* self, PyObject* cls, PyObject* in_data, LocalView& cfg,
                                PyObject* told);

// self._forward_routed(in_data, told): the Python method, told the class's
// own intel64_on_device answer and the dtype written (``told``: that pair,
// or nullptr: nothing asked yet)
PyObject* python_forward_routed(PyObject* self, PyObject* in_data, PyObject* told) {
    if (told == nullptr) return PyObject_CallMethodOneArg(self, s_forward_routed, in_data);
    PyObject* args[3] = {self, in_data, told};
    return PyObject_VectorcallMethod(s_forward_routed, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                     nullptr);
}

// FunctionNode._forward_routed for its common case, NumPy arrays only and
// the class's default device rule (the caller checked both, and that the
// class keeps the default _forward_routed): the same attributes written,
// the same route question asked, the forward called as it calls it. The
// mixed_bf16 mode and a route choice kept by choose_intel64 go to the
// Python method. ``own_rule``: the class has its own intel64_on_device
// (a gradient node whose forward node's arrays decide, e.g. ReLUGrad),
// asked as the method asks it; an answer other than False, or a kept
// choice, goes to the method told the answer and the dtype written.
PyObject* forward_routed_numpy(PyObject* self, PyObject* cls, PyObject* in_data, LocalView& cfg,
                               bool own_rule) {
    Ref dtype(cfg.get(s_dtype_cfg));
    if (!dtype) return nullptr;
    if (dtype.p == g.mixed_bf16) return PyObject_CallMethodOneArg(self, s_forward_routed, in_data);
    Ref route_fn(class_attr(cls, s_forward_intel64));
    if (!route_fn) return nullptr;
    bool has_route = route_fn.p != g.no_intel64_route;
    if (has_route) {
        // (a class's own choice: the Python method; a kept choice too,
        // read here under the default device rule, after an own rule)
        Ref chooser(class_attr(cls, s_choose_off_device));
        if (!chooser) return nullptr;
        bool python = chooser.p != g.choose_off_device;
        if (!python && !own_rule) {
            Ref choice(PyObject_GetAttr(self, s_route_choice));
            if (!choice) return nullptr;
            python = choice.p != Py_None;
        }
        if (python) return PyObject_CallMethodOneArg(self, s_forward_routed, in_data);
    }
    if (set_attr(self, s_forward_dtype, dtype.p) < 0) return nullptr;
    if (own_rule) {
        // (the class's intel64_on_device, asked once, after _forward_dtype
        // as the Python method asks it)
        Ref on(PyObject_CallMethodOneArg(self, s_intel64_on_device, in_data));
        if (!on) return nullptr;
        bool rest_here = on.p == Py_False;  // (any other answer: the Python method)
        if (rest_here && has_route) {
            Ref choice(PyObject_GetAttr(self, s_route_choice));
            if (!choice) return nullptr;
            rest_here = choice.p == Py_None;
        }
        if (!rest_here) {
            // (the Python method told the answer and the dtype it wrote:
            // neither asked again; an exact True without a kept choice is
            // forward_routed_device's case, e.g. the weight gradient of a
            // weight on the device, told as the method is)
            Ref told(PyTuple_Pack(2, on.p, dtype.p));
            if (!told) return nullptr;
            if (on.p == Py_True && g.plain_views != nullptr) {
                bool kept = false;
                if (has_route) {
                    Ref choice(PyObject_GetAttr(self, s_route_choice));
                    if (!choice) return nullptr;
                    kept = choice.p != Py_None;
                }
                if (!kept) return forward_routed_device(self, cls, in_data, cfg, told.p);
            }
            return python_forward_routed(self, in_data, told.p);
        }
    }
    if (set_attr(self, s_bf16_forward, Py_False) < 0) return nullptr;
    int route = -1;  // -1: none to choose (None in Python)
    if (has_route) {
        Ref mode(cfg.get(s_use_ideep));
        if (!mode) return nullptr;
        bool decided = false;
        if (str_eq(mode.p, g.never)) {
            route = 0;
            decided = true;
        } else if (str_eq(mode.p, g.autos)) {
            // (_choose_off_device: the size rule first; most small calls
            // end here)
            Ref ok(ask_size_rule(self, s_intel64_profitable, in_data));
            if (!ok) {
                if (!PyErr_ExceptionMatches(PyExc_Exception)) return nullptr;
                PyErr_Clear();  // (asked again, with the rest, below)
            } else {
                int t = PyObject_IsTrue(ok.p);
                if (t < 0) {
                    if (!PyErr_ExceptionMatches(PyExc_Exception)) return nullptr;
                    PyErr_Clear();
                } else if (!t) {
                    route = 0;
                    decided = true;
                }
            }
        }
        if (!decided) {
            // (past the size rule: the rest of _choose_off_device, which
            // does not ask the rule first again; another mode: all of it)
            Ref r(PyObject_CallMethodObjArgs(
                self, str_eq(mode.p, g.autos) ? s_choose_off_rest : s_choose_off_device, in_data,
                mode.p, nullptr));
            if (!r) return nullptr;
            int t = PyObject_IsTrue(r.p);
            if (t < 0) return nullptr;
            route = t;
        }
    }
    if (route >= 0 && PyList_GET_SIZE(g.route_watch) && PyList_GET_ITEM(g.route_watch, 0) != Py_None) {
        PyObject* watch = PyList_GET_ITEM(g.route_watch, 0);
        Py_INCREF(watch);
        Ref w(watch);
        Ref r(PyObject_CallFunctionObjArgs(w.p, self, route ? Py_True : Py_False, nullptr));
        if (!r) return nullptr;
    }
    if (route == 1) return PyObject_CallFunctionObjArgs(g.run_route_off_device, self, in_data, nullptr);
    return call_forward(self, in_data);
}

// FunctionNode._forward_routed for device arrays (mdarrays, with or without
// NumPy arrays) under the class's default rules, outside mixed_bf16 and
// without a kept route choice: 'auto' asks the size rule first
// (_wants_route_on_device: a small call takes the NumPy path on the
// buffers' views), the route runs on the arrays as they are; the caller
// checked the classes' defaults. ``told``: nullptr, or for a class with its
// own device rule (NumPy arrays that rule put on the device) its answer,
// True, and the dtype written as _forward_dtype (python_forward_routed).
PyObject* forward_routed_device(PyObject* self, PyObject* cls, PyObject* in_data, LocalView& cfg,
                                PyObject* told) {
    Ref dtype;
    if (told == nullptr) {
        dtype.reset(cfg.get(s_dtype_cfg));
        if (!dtype) return nullptr;
    } else {
        dtype.reset(PyTuple_GET_ITEM(told, 1));
        Py_INCREF(dtype.p);
    }
    if (dtype.p == g.mixed_bf16 || g.plain_views == nullptr)
        return python_forward_routed(self, in_data, told);
    Ref route_fn(class_attr(cls, s_forward_intel64));
    if (!route_fn) return nullptr;
    bool has_route = route_fn.p != g.no_intel64_route;
    Ref mode;
    if (has_route) {
        Ref choice(PyObject_GetAttr(self, s_route_choice));
        if (!choice) return nullptr;
        Ref wants_fn(class_attr(cls, s_wants_route));
        if (!wants_fn) return nullptr;
        mode.reset(cfg.get(s_use_ideep));
        if (!mode) return nullptr;
        // (another mode's check, a kept choice, a class's own wants rule:
        // the Python method)
        Ref chooser(class_attr(cls, s_choose_on_device));
        if (!chooser) return nullptr;
        if (choice.p != Py_None || wants_fn.p != g.wants_route || chooser.p != g.choose_on_device ||
            !(str_eq(mode.p, g.autos) || str_eq(mode.p, g.never) || str_eq(mode.p, g.always)))
            return python_forward_routed(self, in_data, told);
    }
    if ((told == nullptr && set_attr(self, s_forward_dtype, dtype.p) < 0) ||
        set_attr(self, s_bf16_forward, Py_False) < 0)
        return nullptr;
    Ref data(in_data);
    Py_INCREF(in_data);
    bool on_device = true;
    int route = -1;  // -1: none to choose
    if (has_route) {
        int wants = -1;  // 1: the route if supported; 0: the NumPy path
        if (str_eq(mode.p, g.autos)) {
            // (_wants_route_on_device: the class's size rule; an error
            // leaves the choice to the route)
            Ref rule(class_attr(cls, s_profitable_on_device));
            if (!rule) return nullptr;
            Ref ok(ask_size_rule(self,
                                 rule.p == g.default_profitable_on_device ? s_intel64_profitable
                                                                          : s_profitable_on_device,
                                 data.p));
            int t = ok ? PyObject_IsTrue(ok.p) : -1;
            if (t < 0) {
                if (!PyErr_ExceptionMatches(PyExc_Exception)) return nullptr;
                PyErr_Clear();
                t = 1;
            }
            if (t) {
                wants = 1;
            } else {
                Ref views(PyObject_CallOneArg(g.plain_views, data.p));
                if (!views) return nullptr;
                if (views.p != Py_None) {
                    data.reset(views.release());
                    on_device = false;
                    wants = 0;
                } else {
                    // a laid-out (blocked) or bfloat16 buffer keeps the route
                    wants = 0;
                    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(data.p) && !wants; ++i) {
                        PyObject* x = PyTuple_GET_ITEM(data.p, i);
                        if (reinterpret_cast<PyObject*>(Py_TYPE(x)) != g.tensor_type) continue;
                        Ref plain(PyObject_GetAttr(x, s_is_plain));
                        if (!plain) return nullptr;
                        int p = PyObject_IsTrue(plain.p);
                        if (p < 0) return nullptr;
                        if (p) {
                            Ref st(PyObject_GetAttr(x, s_storage_dtype));
                            if (!st) return nullptr;
                            PyObject* f32 = PyUnicode_FromString("float32");
                            if (f32 == nullptr) return nullptr;
                            int eq = PyObject_RichCompareBool(st.p, f32, Py_EQ);
                            Py_DECREF(f32);
                            if (eq < 0) return nullptr;
                            p = eq;
                        }
                        if (!p) wants = 1;
                    }
                }
            }
        }
        if (wants == 0) {
            route = 0;
        } else {
            // (_choose_on_device: the route where the op supports the arrays)
            Ref ok(PyObject_CallMethodOneArg(self, s_supports, data.p));
            if (!ok) return nullptr;
            route = PyObject_IsTrue(ok.p);
            if (route < 0) return nullptr;
        }
    }
    if (route >= 0 && PyList_GET_SIZE(g.route_watch) && PyList_GET_ITEM(g.route_watch, 0) != Py_None) {
        PyObject* watch = PyList_GET_ITEM(g.route_watch, 0);
        Py_INCREF(watch);
        Ref w(watch);
        Ref r(PyObject_CallFunctionObjArgs(w.p, self, route ? Py_True : Py_False, nullptr));
        if (!r) return nullptr;
    }
    if (route == 1) return PyObject_CallMethodOneArg(self, s_forward_intel64, data.p);
    if (on_device) {
        Ref plain(PyObject_CallOneArg(g.plain_arrays, data.p));
        if (!plain) return nullptr;
        data.reset(plain.release());
        if (set_attr(self, s_plain_inputs, Py_None) < 0) return nullptr;
    }
    return call_forward(self, data.p);
}

// self._forward_routed(in_data): NumPy arrays and device arrays under the
// class's default rules in C (forward_routed_numpy, forward_routed_device).
PyObject* forward_routed(PyObject* self, PyObject* cls, PyObject* in_data, LocalView& cfg) {
    bool common = true, device = false;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(in_data) && common; ++i) {
        PyObject* t = reinterpret_cast<PyObject*>(Py_TYPE(PyTuple_GET_ITEM(in_data, i)));
        if (t == g.tensor_type)
            device = true;
        else
            common = t == g.ndarray_type;
    }
    if (common) {
        Ref routed(class_attr(cls, s_forward_routed));
        if (!routed) return nullptr;
        Ref rule(class_attr(cls, s_intel64_on_device));
        if (!rule) return nullptr;
        if (routed.p == g.forward_routed && rule.p != g.default_on_device && !device)
            return forward_routed_numpy(self, cls, in_data, cfg, true);
        common = routed.p == g.forward_routed && rule.p == g.default_on_device;
    }
    if (!common) return PyObject_CallMethodOneArg(self, s_forward_routed, in_data);
    return device ? forward_routed_device(self, cls, in_data, cfg, nullptr)
                  : forward_routed_numpy(self, cls, in_data, cfg, false);
}

// Under config.debug: _check_nan(outputs, 'the forward computation of ' +
// self.label). 0, or -1 with the exception set.
int check_forward_nan(PyObject* self, PyObject* outputs, LocalView& cfg) {
    int t = cfg.truth(s_debug);
    if (t <= 0) return t;
    Ref label(PyObject_GetAttr(self, s_label));
    if (!label) return -1;
    Ref prefix(PyUnicode_FromString("the forward computation of "));
    if (!prefix) return -1;
    Ref where(PyUnicode_Concat(prefix.p, label.p));
    if (!where) return -1;
    Ref r(PyObject_CallFunctionObjArgs(g.check_nan, outputs, where.p, nullptr));
    return r ? 0 : -1;
}

PyObject* apply_impl(PyObject* self, PyObject* inputs) {
    // -- whether this call is the common case: else all of it in Python
    {
        PyObject* active = PyList_GET_SIZE(g.trace_active) ? PyList_GET_ITEM(g.trace_active, 0)
                                                           : Py_False;
        int t = PyObject_IsTrue(active);
        if (t < 0) return nullptr;
        if (t) return fallback(self, inputs);
    }
    if (!(PyTuple_CheckExact(inputs) || PyList_CheckExact(inputs))) return fallback(self, inputs);
    // (a list's items are read from a tuple copy: the forward may change it)
    Ref items(PyTuple_CheckExact(inputs) ? (Py_INCREF(inputs), inputs) : PyList_AsTuple(inputs));
    if (!items) return nullptr;
    Py_ssize_t n = PyTuple_GET_SIZE(items.p);
    if (n > kMaxFast) return fallback(self, inputs);
    PyObject* cls = reinterpret_cast<PyObject*>(Py_TYPE(self));
    {
        Ref hooks_fn(class_attr(cls, s_function_hooks));
        if (!hooks_fn) return nullptr;
        if (hooks_fn.p != g.hooks_of) return fallback(self, inputs);
        int t = attr_true(g.global_hooks, s_hooks);
        if (t < 0) return nullptr;
        if (t) return fallback(self, inputs);
        t = attr_true(self, s_local_hooks);
        if (t < 0) return nullptr;
        if (t) return fallback(self, inputs);
    }
    // inputs: Variables (their arrays) and constant arrays
    PyObject* vars[kMaxFast];  // borrowed from inputs; nullptr: a constant
    Ref in_data(PyTuple_New(n));
    if (!in_data) return nullptr;
    int n_vars = 0;
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* x = PyTuple_GET_ITEM(items.p, i);
        PyObject* t = reinterpret_cast<PyObject*>(Py_TYPE(x));
        if (t == g.variable_type || t == g.parameter_type) {
            vars[i] = x;
            ++n_vars;
            PyObject* a = var_get(x, V_ARRAY);
            if (a == nullptr) return nullptr;
            PyTuple_SET_ITEM(in_data.p, i, a);
        } else if (t == g.ndarray_type || t == g.tensor_type) {
            vars[i] = nullptr;
            Py_INCREF(x);
            PyTuple_SET_ITEM(in_data.p, i, x);
        } else {
            return fallback(self, inputs);
        }
    }
    // whether an output requires a gradient, as the Python apply computes
    // it: the ``or`` of the Variables' flags in its one-to-three-input
    // forms, a bool in its general loop
    Ref requires_grad;
    {
        Ref flags[kMaxFast];
        for (Py_ssize_t i = 0; i < n; ++i) {
            if (vars[i] != nullptr) {
                flags[i].reset(var_get(vars[i], V_REQUIRES_GRAD));
                if (!flags[i]) return nullptr;
            }
        }
        bool special = (n == 1) || (n == 2 && vars[0] != nullptr) ||
                       (n == 3 && vars[1] != nullptr && vars[2] != nullptr);
        if (special) {
            PyObject* chain[3];
            int k = 0;
            for (Py_ssize_t i = 0; i < n; ++i)
                if (vars[i] != nullptr) chain[k++] = flags[i].p;
            if (k == 0) {
                Py_INCREF(Py_False);
                requires_grad.reset(Py_False);
            } else {
                requires_grad.reset(py_or(chain, k));
                if (!requires_grad) return nullptr;
            }
        } else {
            bool any = false;
            for (Py_ssize_t i = 0; i < n; ++i) {
                if (vars[i] == nullptr) continue;
                int t = PyObject_IsTrue(flags[i].p);
                if (t < 0) return nullptr;
                if (t) any = true;
            }
            PyObject* b = any ? Py_True : Py_False;
            Py_INCREF(b);
            requires_grad.reset(b);
        }
    }

    // -- the type check (once per signature where the class says how)
    LocalView cfg(g.config);  // (this thread's configuration)
    {
        Ref check(class_attr(cls, s_check_type_forward));
        if (!check) return nullptr;
        if (check.p != g.no_type_check) {
            int t = cfg.truth(s_type_check);
            if (t < 0) return nullptr;
            if (t) {
                LocalView state(g.backward_state);
                int skip = state.truth(s_untracked);
                if (skip < 0) return nullptr;
                if (skip) {
                    Ref flag(class_attr(cls, s_skippable));
                    if (!flag) return nullptr;
                    skip = PyObject_IsTrue(flag.p);
                    if (skip < 0) return nullptr;
                }
                if (!skip) {
                    Ref attrs(class_attr(cls, s_type_check_attrs));
                    if (!attrs) return nullptr;
                    if (attrs.p == Py_None) {
                        Ref r(PyObject_CallFunctionObjArgs(g.light_type_check, self, in_data.p,
                                                           nullptr));
                        if (!r) return nullptr;
                    } else if (check_by_signature(self, cls, attrs.p, in_data.p) < 0) {
                        return nullptr;
                    }
                }
            }
        }
    }

    // -- retention declared by the class, then the routed forward
    {
        Ref declared(PyObject_GetAttr(self, s_retained_for_backward));
        if (!declared) return nullptr;
        if (declared.p == Py_None) {
            if (set_attr(self, s_in_retain, Py_None) < 0 ||
                set_attr(self, s_out_retain, Py_None) < 0)
                return nullptr;
        } else {
            for (int k = 0; k < 2; ++k) {
                Ref part(PySequence_GetItem(declared.p, k));
                if (!part) return nullptr;
                Ref tup(PySequence_Tuple(part.p));
                if (!tup) return nullptr;
                PyObject* v = PyTuple_GET_SIZE(tup.p) ? tup.p : Py_None;
                if (set_attr(self, k == 0 ? s_in_retain : s_out_retain, v) < 0) return nullptr;
            }
        }
    }
    Ref outputs(forward_routed(self, cls, in_data.p, cfg));
    if (!outputs) return nullptr;
    if (!PyTuple_Check(outputs.p)) {
        forward_type_error(self, "%S.forward: expected a tuple of arrays, got %S", outputs.p);
        return nullptr;
    }
    Py_ssize_t n_out = PyTuple_GET_SIZE(outputs.p);
    for (Py_ssize_t i = 0; i < n_out; ++i) {
        PyObject* y = PyTuple_GET_ITEM(outputs.p, i);
        PyObject* t = reinterpret_cast<PyObject*>(Py_TYPE(y));
        if (t == g.ndarray_type || t == g.tensor_type) continue;
        Ref ok(PyObject_CallOneArg(g.is_array, y));
        if (!ok) return nullptr;
        int truth = PyObject_IsTrue(ok.p);
        if (truth < 0) return nullptr;
        if (!truth) {
            forward_type_error(
                self, "%S.forward: expected a tuple of arrays, got an element of type %S", y);
            return nullptr;
        }
    }
    if (check_forward_nan(self, outputs.p, cfg) < 0) return nullptr;

    // -- the outputs' Variables, and the graph
    int build_graph = cfg.truth(s_enable_backprop);
    if (build_graph < 0) return nullptr;
    Ref ret(PyTuple_New(n_out));
    if (!ret) return nullptr;
    for (Py_ssize_t i = 0; i < n_out; ++i) {
        PyObject* v = of_output(PyTuple_GET_ITEM(outputs.p, i), requires_grad.p);
        if (v == nullptr) return nullptr;
        PyTuple_SET_ITEM(ret.p, i, v);
    }
    if (!build_graph) {
        if (set_attr(self, s_in_retain, Py_None) < 0 || set_attr(self, s_out_retain, Py_None) < 0)
            return nullptr;
        return ret.release();
    }
    // the inputs' nodes (a constant array becomes a Variable here) and rank
    Ref consts[kMaxFast];
    Ref nodes(PyTuple_New(n));
    if (!nodes) return nullptr;
    Ref rank;
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* var = vars[i];
        if (var == nullptr) {
            consts[i].reset(of_output(PyTuple_GET_ITEM(in_data.p, i), Py_False));
            if (!consts[i]) return nullptr;
            var = consts[i].p;
        }
        PyObject* node = var_get(var, V_NODE);
        if (node == nullptr) return nullptr;
        PyTuple_SET_ITEM(nodes.p, i, node);
        Ref r(node_get(node, N_RANK));
        if (!r) return nullptr;
        if (!rank) {
            rank.reset(r.release());
        } else {
            int gt = PyObject_RichCompareBool(r.p, rank.p, Py_GT);
            if (gt < 0) return nullptr;
            if (gt) rank.reset(r.release());
        }
    }
    if (!rank) {
        Py_INCREF(g.zero);
        rank.reset(g.zero);
    }
    if (set_attr(self, s_inputs, nodes.p) < 0 || set_attr(self, s_rank, rank.p) < 0)
        return nullptr;
    Ref out_rank(PyNumber_Add(rank.p, g.one));
    if (!out_rank) return nullptr;
    Ref refs(PyTuple_New(n_out));
    Ref meta(PyTuple_New(n_out));
    if (!refs || !meta) return nullptr;
    for (Py_ssize_t i = 0; i < n_out; ++i) {
        PyObject* y = PyTuple_GET_ITEM(outputs.p, i);
        Ref node(var_get(PyTuple_GET_ITEM(ret.p, i), V_NODE));
        if (!node) return nullptr;
        if (node_set(node.p, N_CREATOR_NODE, self) < 0 || node_set(node.p, N_RANK, out_rank.p) < 0)
            return nullptr;
        PyObject* wr = PyWeakref_NewRef(node.p, nullptr);
        if (wr == nullptr) return nullptr;
        PyTuple_SET_ITEM(refs.p, i, wr);
        // (an ndarray's or mdarray's shape is a tuple: the one of_output
        // read for the node, as a second read would give)
        PyObject* yt = reinterpret_cast<PyObject*>(Py_TYPE(y));
        bool known = yt == g.ndarray_type || yt == g.tensor_type;
        Ref shape(known ? node_get(node.p, N_SHAPE) : PyObject_GetAttr(y, s_shape));
        if (!shape) return nullptr;
        Ref dtype(known ? node_get(node.p, N_DTYPE) : PyObject_GetAttr(y, s_dtype));
        if (!dtype) return nullptr;
        Ref device;
        if (reinterpret_cast<PyObject*>(Py_TYPE(y)) == g.ndarray_type) {
            Py_INCREF(g.cpu_device);
            device.reset(g.cpu_device);
        } else {
            device.reset(PyObject_CallOneArg(g.device_of, y));
            if (!device) return nullptr;
        }
        PyObject* m = PyTuple_Pack(3, shape.p, dtype.p, device.p);
        if (m == nullptr) return nullptr;
        PyTuple_SET_ITEM(meta.p, i, m);
    }
    if (set_attr(self, s_outputs, refs.p) < 0 || set_attr(self, s_output_meta, meta.p) < 0)
        return nullptr;
    {
        Ref retain(PyObject_GetAttr(self, s_in_retain));
        if (!retain) return nullptr;
        if (retain.p != Py_None) {
            Ref seq(PySequence_Tuple(retain.p));
            if (!seq) return nullptr;
            for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(seq.p); ++j) {
                Py_ssize_t i = PyNumber_AsSsize_t(PyTuple_GET_ITEM(seq.p, j),
                                                  PyExc_IndexError);
                if (i == -1 && PyErr_Occurred()) return nullptr;
                if (i < 0) i += n;
                if (i < 0 || i >= n) {
                    PyErr_SetString(PyExc_IndexError, "tuple index out of range");
                    return nullptr;
                }
                // (Variable.retain_data: the node keeps the array)
                PyObject* var = vars[i] != nullptr ? vars[i] : consts[i].p;
                Ref node(var_get(var, V_NODE));
                if (!node) return nullptr;
                Ref arr(var_get(var, V_ARRAY));
                if (!arr || node_set(node.p, N_DATA, arr.p) < 0) return nullptr;
            }
        }
    }
    {
        Ref retain(PyObject_GetAttr(self, s_out_retain));
        if (!retain) return nullptr;
        if (retain.p != Py_None) {
            Ref seq(PySequence_Tuple(retain.p));
            if (!seq) return nullptr;
            Py_ssize_t m = PyTuple_GET_SIZE(seq.p);
            Ref kept(PyTuple_New(m));
            if (!kept) return nullptr;
            for (Py_ssize_t j = 0; j < m; ++j) {
                PyObject* y = PyObject_GetItem(outputs.p, PyTuple_GET_ITEM(seq.p, j));
                if (y == nullptr) return nullptr;
                PyTuple_SET_ITEM(kept.p, j, y);
            }
            if (set_attr(self, s_retained_output_data, kept.p) < 0) return nullptr;
        }
    }
    return ret.release();
}

// fn(self, *args, **kwargs) from a vectorcall's arguments.
PyObject* call_python(PyObject* fn, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                      PyObject* kwnames) {
    if (fn == nullptr) {
        PyErr_SetString(PyExc_RuntimeError, "cpuframe._core: the native core is not installed");
        return nullptr;
    }
    Ref tuple(PyTuple_New(nargs + 1));
    if (!tuple) return nullptr;
    Py_INCREF(self);
    PyTuple_SET_ITEM(tuple.p, 0, self);
    for (Py_ssize_t i = 0; i < nargs; ++i) {
        Py_INCREF(args[i]);
        PyTuple_SET_ITEM(tuple.p, i + 1, args[i]);
    }
    Ref kwargs;
    if (kwnames != nullptr) {
        kwargs.reset(PyDict_New());
        if (!kwargs) return nullptr;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); ++i)
            if (PyDict_SetItem(kwargs.p, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0)
                return nullptr;
    }
    return PyObject_Call(fn, tuple.p, kwargs.p);
}

PyObject* core_apply(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    if (nargs == 1 && kwnames == nullptr && g_installed) return apply_impl(self, args[0]);
    // (another way of calling it: the Python definition answers)
    return call_python(g.apply_python, self, args, nargs, kwnames);
}

// FunctionNode._compute(in_data): the node's outputs for arrays, nothing
// recorded (the building block of backward_arrays); a thread recording for
// @static_graph, or in_data not a tuple, goes to the Python definition.
PyObject* core_compute(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    if (nargs != 1 || kwnames != nullptr || !g_installed || !PyTuple_Check(args[0]))
        return call_python(g.compute_python, self, args, nargs, kwnames);
    PyObject* active =
        PyList_GET_SIZE(g.trace_active) ? PyList_GET_ITEM(g.trace_active, 0) : Py_False;
    int t = PyObject_IsTrue(active);
    if (t < 0) return nullptr;
    if (t) return call_python(g.compute_python, self, args, nargs, kwnames);
    LocalView cfg(g.config);
    Ref outputs(forward_routed(self, reinterpret_cast<PyObject*>(Py_TYPE(self)), args[0], cfg));
    if (!outputs || check_forward_nan(self, outputs.p, cfg) < 0) return nullptr;
    return outputs.release();
}

PyMethodDef compute_def = {
    "_compute", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(core_compute)),
    METH_FASTCALL | METH_KEYWORDS,
    "_compute($self, in_data)\n--\n\nThis node's outputs (a tuple of arrays) for the arrays ``in_data``, "
    "nothing recorded (the native core; FunctionNode._compute_python is the definition)."};

PyMethodDef apply_def = {
    "apply", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(core_apply)),
    METH_FASTCALL | METH_KEYWORDS,
    "apply($self, inputs)\n--\n\nCompute the outputs of this function on ``inputs`` (Variables or arrays; "
    "arrays become constants) and return a tuple of Variables (the native core; "
    "FunctionNode._apply_python is the definition)."};

PyObject* core_of_output(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    if (nargs != 2 || !g_installed) {
        PyErr_SetString(PyExc_TypeError, "of_output: expected (array, requires_grad)");
        return nullptr;
    }
    return of_output(args[0], args[1]);
}

// -- the backward walk (variable._backprop) for its common case: no double
// backprop, gradients carried as arrays, no target and no leaf listener,
// retain_grad off, lazy_grad_sum off. variable._backprop_python is the
// definition; this does what it does in the same order, and a node other
// than the common one (a hook, a backward_accumulate of its own, no
// backward_arrays) runs variable._node_backward, the same function the
// Python walk calls for it.

// A function waiting in the walk's heap: highest rank first, then the
// order it was queued in (as the Python walk's (-rank, counter, func)).
struct Queued {
    long long neg_rank;
    unsigned long long order;
    PyObject* func;  // borrowed: the walk's ``queued`` set holds it
    bool operator>(const Queued& o) const {
        return neg_rank != o.neg_rank ? neg_rank > o.neg_rank : order > o.order;
    }
};

struct Walk {
    PyObject* grads = nullptr;   // {node: [gradient arrays]}
    PyObject* seeds = nullptr;   // {node: the seed Variable}
    PyObject* queued = nullptr;  // set of functions
    std::vector<Queued> heap;
    unsigned long long counter = 0;
    ~Walk() {
        Py_XDECREF(grads);
        Py_XDECREF(seeds);
        Py_XDECREF(queued);
    }

    // queue ``func`` unless it was: 0, or -1 with an exception set
    int push(PyObject* func) {
        int in = PySet_Contains(queued, func);
        if (in != 0) return in < 0 ? -1 : 0;
        Ref rank(PyObject_GetAttr(func, s_rank));
        if (!rank) return -1;
        long long r = PyLong_AsLongLong(rank.p);
        if (r == -1 && PyErr_Occurred()) return -1;
        try {
            heap.push_back({-r, counter++, func});
        } catch (const std::bad_alloc&) {
            PyErr_NoMemory();
            return -1;
        }
        if (PySet_Add(queued, func) < 0) {
            heap.pop_back();
            return -1;
        }
        std::push_heap(heap.begin(), heap.end(), std::greater<Queued>());
        return 0;
    }

    PyObject* pop() {
        std::pop_heap(heap.begin(), heap.end(), std::greater<Queued>());
        PyObject* f = heap.back().func;
        heap.pop_back();
        return f;
    }
};

// cpuframe.variable's function ``name`` as it is now: a borrowed reference,
// or nullptr with an exception set.
PyObject* variable_function(PyObject* name) {
    PyObject* f = PyDict_GetItemWithError(g.variable_globals, name);
    if (f == nullptr && !PyErr_Occurred())
        PyErr_Format(PyExc_AttributeError, "cpuframe.variable has no %S", name);
    return f;
}

// variable.<name>(args...) as the module has it now: a new reference or
// nullptr.
PyObject* call_variable_function(PyObject* name, PyObject* const* args, Py_ssize_t n) {
    PyObject* f = variable_function(name);
    if (f == nullptr) return nullptr;
    Ref held(f);
    Py_INCREF(f);
    return PyObject_Vectorcall(f, args, n, nullptr);
}


// variable._add_grad_arrays(arrays): a new reference or nullptr.
PyObject* add_grad_arrays(PyObject* arrays) {
    return call_variable_function(s_add_grad_arrays_fn, &arrays, 1);
}

// grads.pop(node, None): a new reference, nullptr with no error when absent
PyObject* dict_pop(PyObject* d, PyObject* key) {
    PyObject* v = PyDict_GetItemWithError(d, key);
    if (v == nullptr) return nullptr;
    Py_INCREF(v);
    if (PyDict_DelItem(d, key) < 0) {
        Py_DECREF(v);
        return nullptr;
    }
    return v;
}

// The sum of a node's gradients ``gs`` (a list only the caller holds; its
// one element, or variable._add_grad_arrays(gs)): a new reference, or
// nullptr with an exception set.
PyObject* summed(Ref& gs) {
    if (PyList_CheckExact(gs.p) && PyList_GET_SIZE(gs.p) == 1) {
        PyObject* a = PyList_GET_ITEM(gs.p, 0);
        Py_INCREF(a);
        gs.reset(nullptr);
        return a;
    }
    PyObject* s = add_grad_arrays(gs.p);
    gs.reset(nullptr);
    return s;
}

// The weakly referenced output node of ``ref`` (an element of
// FunctionNode.outputs): a new reference, Py_None when it is gone.
PyObject* deref(PyObject* ref) {
    if (PyWeakref_CheckRef(ref)) {
#if PY_VERSION_HEX >= 0x030D0000
        PyObject* o = nullptr;
        if (PyWeakref_GetRef(ref, &o) < 0) return nullptr;
        if (o == nullptr) Py_RETURN_NONE;
        return o;
#else
        PyObject* o = PyWeakref_GetObject(ref);
        if (o == nullptr) return nullptr;
        Py_INCREF(o);
        return o;
#endif
    }
    return PyObject_CallNoArgs(ref);
}

// _temporaries.donated_arrays(gys): per array, whether the tuple ``gys``
// alone refers to it and it owns its buffer.
PyObject* donated_flags(PyObject* gys) {
    Py_ssize_t n = PyTuple_GET_SIZE(gys);
    Ref flags(PyTuple_New(n));
    if (!flags) return nullptr;
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* a = PyTuple_GET_ITEM(gys, i);
        bool donated = false;
        if (a != Py_None && Py_REFCNT(a) <= 1) {
            Ref owns(PyObject_CallOneArg(g.owns_buffer, a));
            if (!owns) return nullptr;
            int t = PyObject_IsTrue(owns.p);
            if (t < 0) return nullptr;
            donated = t;
        }
        PyObject* b = donated ? Py_True : Py_False;
        Py_INCREF(b);
        PyTuple_SET_ITEM(flags.p, i, b);
    }
    return flags.release();
}

// func._call_backward(targets, gys, None, True) for the class's default
// _call_backward and _call_backward_arrays_now outside a mode switch: the
// list of input gradients (arrays or None), shapes checked.
PyObject* call_backward_arrays(PyObject* func, PyObject* inputs,
                               PyObject* targets, PyObject* gys, LocalView& cfg) {
    // (the method as ``func._call_backward`` finds it: a class's own or an
    // instance's own takes the Python call)
    bool python = false;
    {
        Ref m(PyObject_GetAttr(func, s_call_backward));
        if (!m) return nullptr;
        python = !(PyMethod_Check(m.p) && PyMethod_GET_FUNCTION(m.p) == g.call_backward &&
                   PyMethod_GET_SELF(m.p) == func);
    }
    if (!python) {
        Ref fdt(PyObject_GetAttr(func, s_forward_dtype));
        if (!fdt) return nullptr;
        if (fdt.p != Py_None) {
            Ref dt(cfg.get(s_dtype_cfg));
            if (!dt) return nullptr;
            python = fdt.p != dt.p && (fdt.p == g.mixed_bf16 || dt.p == g.mixed_bf16);
        }
    }
    if (python) {
        PyObject* args[5] = {func, targets, gys, Py_None, Py_True};
        return PyObject_VectorcallMethod(s_call_backward, args,
                                         5 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
    }
    {
        Ref m(PyObject_GetAttr(func, s_call_backward_arrays_now));
        if (!m) return nullptr;
        if (!(PyMethod_Check(m.p) && PyMethod_GET_FUNCTION(m.p) == g.call_backward_arrays_now &&
              PyMethod_GET_SELF(m.p) == func)) {
            PyObject* args[3] = {func, targets, gys};
            return PyObject_VectorcallMethod(s_call_backward_arrays_now, args,
                                             3 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
        }
    }
    PyObject* args[3] = {func, targets, gys};
    Ref gxs(PyObject_VectorcallMethod(s_backward_arrays, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                      nullptr));
    if (!gxs) return nullptr;
    if (gxs.p == Py_NotImplemented)
        return PyObject_VectorcallMethod(s_backward_arrays_declined, args,
                                         3 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
    Py_ssize_t n = PyObject_Length(gxs.p);
    if (n < 0) return nullptr;
    Py_ssize_t n_targets = PyTuple_GET_SIZE(targets);
    if (n != n_targets) {
        Ref label(PyObject_GetAttr(func, s_label));
        if (label)
            PyErr_Format(PyExc_ValueError,
                         "%S.backward_arrays: expected %zd gradients (one per target input), got %zd",
                         label.p, n_targets, n);
        return nullptr;
    }
    Ref ret(PySequence_List(gxs.p));
    if (!ret) return nullptr;
    gxs.reset(nullptr);
    for (Py_ssize_t k = 0; k < n_targets; ++k) {
        PyObject* gx = PyList_GET_ITEM(ret.p, k);
        if (gx == Py_None) continue;
        Ref gshape(PyObject_GetAttr(gx, s_shape));
        if (!gshape) return nullptr;
        PyObject* index = PyTuple_GET_ITEM(targets, k);
        Ref node(PyObject_GetItem(inputs, index));
        if (!node) return nullptr;
        Ref shape(node_get(node.p, N_SHAPE));
        if (!shape) return nullptr;
        int ne = PyObject_RichCompareBool(gshape.p, shape.p, Py_NE);
        if (ne < 0) return nullptr;
        if (ne && shape.p != Py_None) {
            Ref as_tuple(PySequence_Tuple(gshape.p));
            if (!as_tuple) return nullptr;
            ne = PyObject_RichCompareBool(as_tuple.p, shape.p, Py_NE);
            if (ne < 0) return nullptr;
            if (ne) {
                Ref label(PyObject_GetAttr(func, s_label));
                if (label)
                    PyErr_Format(PyExc_ValueError,
                                 "%S.backward: the gradient of input %S has shape %S, expected %S",
                                 label.p, index, gshape.p, shape.p);
                return nullptr;
            }
        }
    }
    int debug = cfg.truth(s_debug);
    if (debug < 0) return nullptr;
    if (debug) {
        Ref label(PyObject_GetAttr(func, s_label));
        if (!label) return nullptr;
        Ref prefix(PyUnicode_FromString("the backward computation of "));
        if (!prefix) return nullptr;
        Ref where(PyUnicode_Concat(prefix.p, label.p));
        if (!where) return nullptr;
        Ref r(PyObject_CallFunctionObjArgs(g.check_nan, ret.p, where.p, nullptr));
        if (!r) return nullptr;
    }
    return ret.release();
}

// The walk's state changes (variable._backprop_python's try/finally):
// backward_state.untracked = True and the configuration's enable_backprop
// False in this thread, restored at the end, whatever happens.
struct WalkScope {
    PyObject* config_dict = nullptr;
    PyObject* old_backprop = nullptr;  // nullptr: it was not set
    PyObject* was_untracked = nullptr;
    bool entered = false;
    bool backprop_set = false;  // (enable_backprop written: restored)

    int enter() {
        was_untracked = PyObject_GetAttr(g.backward_state, s_untracked);
        if (was_untracked == nullptr) return -1;
        if (PyObject_SetAttr(g.backward_state, s_untracked, Py_True) < 0) return -1;
        entered = true;
        config_dict = PyObject_GetAttr(g.config, s_dict);
        if (config_dict == nullptr) return -1;
        if (!PyDict_Check(config_dict)) {
            PyErr_SetString(PyExc_TypeError, "backward: the configuration has no dictionary");
            return -1;
        }
        old_backprop = PyDict_GetItemWithError(config_dict, s_enable_backprop);
        if (old_backprop == nullptr && PyErr_Occurred()) return -1;
        Py_XINCREF(old_backprop);
        backprop_set = true;
        return PyDict_SetItem(config_dict, s_enable_backprop, Py_False);
    }

    ~WalkScope() {
        if (!entered) {
            Py_XDECREF(was_untracked);
            return;
        }
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (PyObject_SetAttr(g.backward_state, s_untracked, was_untracked) < 0)
            PyErr_WriteUnraisable(g.backward_state);
        if (backprop_set) {
            int r;
            if (old_backprop == nullptr) {
                r = PyDict_DelItem(config_dict, s_enable_backprop);
                if (r < 0 && PyErr_ExceptionMatches(PyExc_KeyError)) {
                    PyErr_Clear();
                    r = 0;
                }
            } else {
                r = PyDict_SetItem(config_dict, s_enable_backprop, old_backprop);
            }
            if (r < 0) PyErr_WriteUnraisable(config_dict);
        }
        Py_XDECREF(was_untracked);
        Py_XDECREF(config_dict);
        Py_XDECREF(old_backprop);
        PyErr_Restore(type, value, tb);
    }
};

// A gradient leaving the engine as a Variable (variable._as_variable): the
// seed Variable given for ``node`` when ``a`` is its array unchanged, else
// a new one.
PyObject* as_variable(PyObject* a, PyObject* node, PyObject* seeds) {
    if (PyDict_GET_SIZE(seeds)) {
        PyObject* seed = PyDict_GetItemWithError(seeds, node);
        if (seed == nullptr && PyErr_Occurred()) return nullptr;
        if (seed != nullptr && seed != Py_None) {
            Ref arr(var_get(seed, V_ARRAY));
            if (!arr) return nullptr;
            if (arr.p == a) {
                Py_INCREF(seed);
                return seed;
            }
        }
    }
    return of_output(a, Py_False);
}

// One function's output gradients as the walk hands them over: a tuple of
// arrays the caller alone holds, nullptr with no error set when the
// function has nothing to do.
PyObject* output_grads_of(PyObject* func, Walk& w) {
    Ref outputs(PyObject_GetAttr(func, s_outputs));
    if (!outputs) return nullptr;
    Ref seq(PySequence_Tuple(outputs.p));
    if (!seq) return nullptr;
    Py_ssize_t n = PyTuple_GET_SIZE(seq.p);
    if (n == 1) {
        Ref node(deref(PyTuple_GET_ITEM(seq.p, 0)));
        if (!node || node.p == Py_None) return nullptr;
        Ref gs(dict_pop(w.grads, node.p));
        if (!gs) return nullptr;
        int t = PyObject_IsTrue(gs.p);
        if (t <= 0) return nullptr;
        PyObject* a = summed(gs);
        if (a == nullptr) return nullptr;
        PyObject* gys = PyTuple_New(1);
        if (gys == nullptr) {
            Py_DECREF(a);
            return nullptr;
        }
        PyTuple_SET_ITEM(gys, 0, a);
        return gys;
    }
    // (several outputs: as variable._take, a missing one as zeros)
    Ref nodes(PyTuple_New(n));
    if (!nodes) return nullptr;
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* node = deref(PyTuple_GET_ITEM(seq.p, i));
        if (node == nullptr) return nullptr;
        PyTuple_SET_ITEM(nodes.p, i, node);
    }
    Ref gys(PyTuple_New(n));
    if (!gys) return nullptr;
    bool any = false;
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* node = PyTuple_GET_ITEM(nodes.p, i);
        PyObject* a = Py_None;
        if (node != Py_None) {
            Ref gs(dict_pop(w.grads, node));
            if (!gs && PyErr_Occurred()) return nullptr;
            int t = gs ? PyObject_IsTrue(gs.p) : 0;
            if (t < 0) return nullptr;
            if (t) {
                a = summed(gs);
                if (a == nullptr) return nullptr;
                any = true;
            }
        }
        if (a == Py_None) Py_INCREF(a);
        PyTuple_SET_ITEM(gys.p, i, a);
    }
    nodes.reset(nullptr);
    if (!any) return nullptr;
    for (Py_ssize_t i = 0; i < n; ++i) {
        if (PyTuple_GET_ITEM(gys.p, i) != Py_None) continue;
        Ref index(PyLong_FromSsize_t(i));
        if (!index) return nullptr;
        PyObject* zero = PyObject_CallMethodOneArg(func, s_zero_output, index.p);
        if (zero == nullptr) return nullptr;
        PyTuple_SET_ITEM(gys.p, i, zero);
        Py_DECREF(Py_None);
    }
    return gys.release();
}

// The indexes of ``inputs`` (nodes) that require a gradient, a tuple.
PyObject* targets_of(PyObject* inputs) {
    Py_ssize_t n = PyTuple_GET_SIZE(inputs);
    Ref targets(PyTuple_New(n));
    if (!targets) return nullptr;
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 0; i < n; ++i) {
        Ref flag(node_get(PyTuple_GET_ITEM(inputs, i), N_REQUIRES_GRAD));
        if (!flag) return nullptr;
        int t = PyObject_IsTrue(flag.p);
        if (t < 0) return nullptr;
        if (!t) continue;
        PyObject* index = PyLong_FromSsize_t(i);
        if (index == nullptr) return nullptr;
        PyTuple_SET_ITEM(targets.p, m++, index);
    }
    if (m < n && _PyTuple_Resize(&targets.p, m) < 0) return nullptr;
    return targets.release();
}

// One node in the common case: backward_arrays on the arrays ``gys`` (the
// walk's only reference, consumed), donation flags told and cleared as
// the Python walk does. The list of input gradients.
PyObject* run_node(PyObject* func, PyObject* inputs, PyObject* targets,
                   PyObject* gys_in, LocalView& cfg) {
    Ref gys(gys_in);
    int accepts = attr_true(func, s_accepts_donated);
    if (accepts < 0) return nullptr;
    if (accepts) {
        Ref flags(donated_flags(gys.p));
        if (!flags || set_attr(func, s_donated_out, flags.p) < 0) return nullptr;
    }
    Ref gxs(call_backward_arrays(func, inputs, targets, gys.p, cfg));
    {
        // (finally)
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        int r = set_attr(func, s_donated_out, Py_None);
        if (r == 0) r = set_attr(func, s_donated_in, Py_None);
        if (r < 0) {
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
            return nullptr;
        }
        PyErr_Restore(type, value, tb);
    }
    if (!gxs) return nullptr;
    gys.reset(nullptr);
    if (PyList_CheckExact(gxs.p)) return gxs.release();
    return PySequence_List(gxs.p);
}

// One node in any other case: variable._node_backward(func, [gys],
// targets, grads, hooks, True, False, False), the gradients handed over in
// a list so that its frame alone holds them (``gys`` consumed).
PyObject* run_node_python(PyObject* func, PyObject* targets, PyObject* gys, PyObject* hooks,
                          Walk& w) {
    Ref box(PyList_New(1));
    if (!box) {
        Py_DECREF(gys);
        return nullptr;
    }
    PyList_SET_ITEM(box.p, 0, gys);
    PyObject* args[8] = {func, box.p, targets, w.grads, hooks, Py_True, Py_False, Py_False};
    Ref gxs(call_variable_function(s_node_backward_fn, args, 8));
    if (!gxs) return nullptr;
    if (PyList_CheckExact(gxs.p)) return gxs.release();
    return PySequence_List(gxs.p);
}

// The input gradients ``gxs`` (a list only the caller holds) into the walk:
// each taken out of the list before it joins its node's sum, the node's
// creator queued.
int distribute(PyObject* gxs, PyObject* inputs, PyObject* targets, Walk& w) {
    Py_ssize_t n = PyTuple_GET_SIZE(targets);
    for (Py_ssize_t k = 0; k < n; ++k) {
        if (k >= PyList_GET_SIZE(gxs)) {
            PyErr_SetString(PyExc_IndexError, "list index out of range");
            return -1;
        }
        PyObject* gx = PyList_GET_ITEM(gxs, k);
        if (gx == Py_None) continue;
        Ref taken(gx);
        Py_INCREF(Py_None);
        PyList_SET_ITEM(gxs, k, Py_None);
        Ref node(PyObject_GetItem(inputs, PyTuple_GET_ITEM(targets, k)));
        if (!node) return -1;
        PyObject* pending = PyDict_GetItemWithError(w.grads, node.p);
        if (pending == nullptr) {
            if (PyErr_Occurred()) return -1;
            Ref fresh(PyList_New(1));
            if (!fresh) return -1;
            PyList_SET_ITEM(fresh.p, 0, taken.release());
            if (PyDict_SetItem(w.grads, node.p, fresh.p) < 0) return -1;
        } else {
            Ref held(pending);
            Py_INCREF(pending);
            if (PyList_Append(pending, taken.p) < 0) return -1;
            taken.reset(nullptr);
            Ref sum(add_grad_arrays(pending));
            if (!sum) return -1;
            Ref fresh(PyList_New(1));
            if (!fresh) return -1;
            PyList_SET_ITEM(fresh.p, 0, sum.release());
            if (PyDict_SetItem(w.grads, node.p, fresh.p) < 0) return -1;
        }
        Ref creator(node_get(node.p, N_CREATOR_NODE));
        if (!creator) return -1;
        if (creator.p != Py_None && w.push(creator.p) < 0) return -1;
    }
    return 0;
}

// backprop(output_nodes, output_grads) -> {leaf node: gradient Variable},
// or NotImplemented (before any work) where variable._backprop_python must
// walk: the engine's array mode off, lazy_grad_sum on.
PyObject* core_backprop(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "backprop: expected (output_nodes, output_grads)");
        return nullptr;
    }
    if (!g_installed || g.variable_globals == nullptr) Py_RETURN_NOTIMPLEMENTED;
    {
        // (backward_arrays_enabled[0], as the Python walk reads it)
        PyObject* enabled = variable_function(s_backward_arrays_enabled);
        if (enabled == nullptr) return nullptr;
        Ref first(PySequence_GetItem(enabled, 0));
        if (!first) return nullptr;
        int t = PyObject_IsTrue(first.p);
        if (t < 0) return nullptr;
        if (!t) Py_RETURN_NOTIMPLEMENTED;
    }
    LocalView cfg(g.config);
    {
        Ref lazy(cfg.get(s_lazy_grad_sum));
        if (!lazy) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return nullptr;
            PyErr_Clear();
        } else {
            int t = PyObject_IsTrue(lazy.p);
            if (t < 0) return nullptr;
            if (t) Py_RETURN_NOTIMPLEMENTED;
        }
    }
    Walk w;
    w.grads = PyDict_New();
    w.seeds = PyDict_New();
    w.queued = PySet_New(nullptr);
    if (!w.grads || !w.seeds || !w.queued) return nullptr;
    {
        Ref nodes(PySequence_Tuple(args[0]));
        if (!nodes) return nullptr;
        Ref grads(PySequence_Tuple(args[1]));
        if (!grads) return nullptr;
        Py_ssize_t n = std::min(PyTuple_GET_SIZE(nodes.p), PyTuple_GET_SIZE(grads.p));
        for (Py_ssize_t i = 0; i < n; ++i) {
            PyObject* node = PyTuple_GET_ITEM(nodes.p, i);
            PyObject* gv = PyTuple_GET_ITEM(grads.p, i);
            if (gv != Py_None) {
                if (PyDict_SetItem(w.seeds, node, gv) < 0) return nullptr;
                Ref a(var_get(gv, V_ARRAY));
                if (!a) return nullptr;
                PyObject* gs = PyDict_GetItemWithError(w.grads, node);
                if (gs == nullptr) {
                    if (PyErr_Occurred()) return nullptr;
                    Ref fresh(PyList_New(0));
                    if (!fresh || PyDict_SetItem(w.grads, node, fresh.p) < 0) return nullptr;
                    gs = fresh.p;
                }
                if (PyList_Append(gs, a.p) < 0) return nullptr;
            }
            Ref func(node_get(node, N_CREATOR_NODE));
            if (!func) return nullptr;
            if (func.p != Py_None && w.push(func.p) < 0) return nullptr;
        }
    }
    Ref global_hooks(PyObject_GetAttr(g.global_hooks, s_hooks));
    if (!global_hooks) return nullptr;
    {
        WalkScope scope;
        if (scope.enter() < 0) return nullptr;
        while (!w.heap.empty()) {
            PyObject* func = w.pop();
            Ref gys(output_grads_of(func, w));
            if (!gys) {
                if (PyErr_Occurred()) return nullptr;
                continue;
            }
            Ref inputs_any(PyObject_GetAttr(func, s_inputs));
            if (!inputs_any) return nullptr;
            Ref inputs(PySequence_Tuple(inputs_any.p));
            if (!inputs) return nullptr;
            Ref targets(targets_of(inputs.p));
            if (!targets) return nullptr;
            if (PyTuple_GET_SIZE(targets.p) == 0) continue;
            Ref hooks;
            int t = PyObject_IsTrue(global_hooks.p);
            if (t < 0) return nullptr;
            if (!t) {
                t = attr_true(func, s_local_hooks);
                if (t < 0) return nullptr;
            }
            if (t) {
                hooks.reset(PyObject_CallMethodNoArgs(func, s_function_hooks));
                if (!hooks) return nullptr;
                t = PyObject_IsTrue(hooks.p);
                if (t < 0) return nullptr;
            } else {
                Py_INCREF(g.empty);
                hooks.reset(g.empty);
            }
            PyObject* cls = reinterpret_cast<PyObject*>(Py_TYPE(func));
            bool common = !t;
            if (common) {
                Ref m(class_attr(cls, s_backward_arrays));
                if (!m) return nullptr;
                common = m.p != Py_None;
            }
            if (common) {
                Ref m(class_attr(cls, s_backward_accumulate));
                if (!m) return nullptr;
                if (m.p != g.base_accumulate) {
                    // (a backward_accumulate of its own, given nothing to
                    // accumulate into: no target input has a gradient yet,
                    // and _node_backward would do what the common case does)
                    for (Py_ssize_t k = 0; common && k < PyTuple_GET_SIZE(targets.p); ++k) {
                        Ref node(PyObject_GetItem(inputs_any.p, PyTuple_GET_ITEM(targets.p, k)));
                        if (!node) return nullptr;
                        int has = PyDict_Contains(w.grads, node.p);
                        if (has < 0) return nullptr;
                        common = !has;
                    }
                }
            }
            Ref gxs(common ? run_node(func, inputs_any.p, targets.p, gys.release(), cfg)
                           : run_node_python(func, targets.p, gys.release(), hooks.p, w));
            if (!gxs) return nullptr;
            hooks.reset(nullptr);
            if (distribute(gxs.p, inputs_any.p, targets.p, w) < 0) return nullptr;
        }
    }
    // the leaves' gradients, as Variables
    Ref leaf_grads(PyDict_New());
    if (!leaf_grads) return nullptr;
    PyObject *node, *gs_borrowed;
    Py_ssize_t pos = 0;
    while (PyDict_Next(w.grads, &pos, &node, &gs_borrowed)) {
        Ref key(node);
        Py_INCREF(node);
        Ref gs(gs_borrowed);
        Py_INCREF(gs_borrowed);
        int t = PyObject_IsTrue(gs.p);
        if (t < 0) return nullptr;
        if (!t) continue;
        Ref a(summed(gs));
        if (!a) return nullptr;
        Ref v(as_variable(a.p, key.p, w.seeds));
        if (!v || PyDict_SetItem(leaf_grads.p, key.p, v.p) < 0) return nullptr;
    }
    return leaf_grads.release();
}


// Whether a leaf may keep ``array`` as its gradient as it is: a NumPy
// array's flags.writeable, else variable._is_writeable(array). 1, 0, -1.
int writeable(PyObject* array) {
    if (reinterpret_cast<PyObject*>(Py_TYPE(array)) == g.ndarray_type) {
        Ref flags(PyObject_GetAttr(array, s_flags));
        if (!flags) return -1;
        return attr_true(flags.p, s_writeable);
    }
    PyObject* args[1] = {array};
    Ref r(call_variable_function(s_is_writeable_fn, args, 1));
    if (!r) return -1;
    return PyObject_IsTrue(r.p);
}

// set_leaf_grads(leaf_grads, loss_scale, enable_double_backprop, given=None):
// variable._set_leaf_grads (the definition) in C: each leaf's gradient
// accumulated into its ``grad``, a copy where the array is another leaf's
// or read-only.
PyObject* core_set_leaf_grads(PyObject*, PyObject* const* args, Py_ssize_t nargs,
                              PyObject* kwnames) {
    PyObject* given_arg = nargs == 4 ? args[3] : nullptr;
    if (kwnames != nullptr) {
        // (``given`` by keyword, as the Python definition takes it)
        bool ok = PyTuple_GET_SIZE(kwnames) == 1 && nargs == 3 &&
                  PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "given") == 0;
        if (!ok) {
            PyErr_SetString(PyExc_TypeError, "set_leaf_grads: the only keyword is given");
            return nullptr;
        }
        given_arg = args[3];
    }
    if (nargs < 3 || nargs > 4 || !g_installed || g.variable_globals == nullptr) {
        PyErr_SetString(PyExc_TypeError,
                        "set_leaf_grads: expected (leaf_grads, loss_scale, enable_double_backprop"
                        "[, given])");
        return nullptr;
    }
    PyObject* leaf_grads = args[0];
    PyObject* loss_scale = args[1];
    PyObject* edb = args[2];
    Ref given;
    if (given_arg != nullptr && given_arg != Py_None) {
        Py_INCREF(given_arg);
        given.reset(given_arg);
    } else {
        given.reset(PySet_New(nullptr));
        if (!given) return nullptr;
    }
    Ref items(PyMapping_Items(leaf_grads));
    if (!items) return nullptr;
    Py_ssize_t n = PyList_GET_SIZE(items.p);
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* item = PyList_GET_ITEM(items.p, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
            PyErr_SetString(PyExc_TypeError, "set_leaf_grads: expected (node, gradient) items");
            return nullptr;
        }
        PyObject* node = PyTuple_GET_ITEM(item, 0);
        Ref gv(PyTuple_GET_ITEM(item, 1));
        Py_INCREF(gv.p);
        Ref ref(node_get(node, N_VARIABLE));
        if (!ref) return nullptr;
        Ref var(deref(ref.p));
        if (!var) return nullptr;
        if (var.p == Py_None || gv.p == Py_None) continue;
        if (var_set(var.p, V_LOSS_SCALE, loss_scale) < 0) return nullptr;
        Ref old(var_get(var.p, V_GRAD_VAR));
        if (!old) return nullptr;
        if (old.p == Py_None) {
            Ref array(var_get(gv.p, V_ARRAY));
            if (!array) return nullptr;
            Ref id(PyLong_FromVoidPtr(array.p));
            if (!id) return nullptr;
            int copy = PySet_Contains(given.p, id.p);
            if (copy < 0) return nullptr;
            if (!copy) {
                int w = writeable(array.p);
                if (w < 0) return nullptr;
                copy = !w;
            }
            array.reset(nullptr);
            if (copy) {
                PyObject* cargs[2] = {gv.p, edb};
                gv.reset(call_variable_function(s_copy_grad_fn, cargs, 2));
                if (!gv) return nullptr;
            }
            if (var_set(var.p, V_GRAD_VAR, gv.p) < 0) return nullptr;
        } else {
            Ref pair(PyList_New(2));
            if (!pair) return nullptr;
            PyList_SET_ITEM(pair.p, 0, old.release());
            PyList_SET_ITEM(pair.p, 1, gv.release());
            PyObject* aargs[2] = {pair.p, edb};
            Ref sum(call_variable_function(s_add_grads_fn, aargs, 2));
            if (!sum) return nullptr;
            pair.reset(nullptr);
            if (var_set(var.p, V_GRAD_VAR, sum.p) < 0) return nullptr;
        }
        Ref now(var_get(var.p, V_GRAD_VAR));
        if (!now) return nullptr;
        Ref array(var_get(now.p, V_ARRAY));
        if (!array) return nullptr;
        Ref id(PyLong_FromVoidPtr(array.p));
        if (!id || PySet_Add(given.p, id.p) < 0) return nullptr;
    }
    Py_RETURN_NONE;
}

// install(refs: dict) -> the method descriptor of apply for FunctionNode
PyObject* core_install(PyObject*, PyObject* refs) {
    if (!PyDict_Check(refs)) {
        PyErr_SetString(PyExc_TypeError, "core_install: expected a dict");
        return nullptr;
    }
    if (!intern_names()) return nullptr;
    static const struct {
        PyObject* CoreRefs::*member;
        const char* key;
    } fields[] = {
        {&CoreRefs::variable_type, "Variable"},
        {&CoreRefs::parameter_type, "Parameter"},
        {&CoreRefs::node_type, "VariableNode"},
        {&CoreRefs::ndarray_type, "ndarray"},
        {&CoreRefs::tensor_type, "mdarray"},
        {&CoreRefs::trace_active, "trace_active"},
        {&CoreRefs::config, "config"},
        {&CoreRefs::backward_state, "backward_state"},
        {&CoreRefs::global_hooks, "global_hooks"},
        {&CoreRefs::hooks_of, "hooks_of"},
        {&CoreRefs::no_type_check, "no_type_check"},
        {&CoreRefs::light_type_check, "light_type_check"},
        {&CoreRefs::checked_signatures, "checked_signatures"},
        {&CoreRefs::check_nan, "check_nan"},
        {&CoreRefs::cpu_device, "cpu_device"},
        {&CoreRefs::device_of, "get_device_from_array"},
        {&CoreRefs::is_array, "is_array"},
        {&CoreRefs::apply_python, "apply_python"},
        {&CoreRefs::forward_routed, "forward_routed"},
        {&CoreRefs::default_on_device, "default_on_device"},
        {&CoreRefs::no_intel64_route, "no_intel64_route"},
        {&CoreRefs::default_forward, "default_forward"},
        {&CoreRefs::mixed_bf16, "mixed_bf16"},
        {&CoreRefs::route_watch, "route_watch"},
        {&CoreRefs::run_route_off_device, "run_route_off_device"},
        {&CoreRefs::compute_python, "compute_python"},
        {&CoreRefs::wants_route, "wants_route"},
        {&CoreRefs::choose_off_device, "choose_off_device"},
        {&CoreRefs::choose_on_device, "choose_on_device"},
        {&CoreRefs::default_profitable_on_device, "default_profitable_on_device"},
        {&CoreRefs::plain_arrays, "plain_arrays"},
        {&CoreRefs::size_rules, "size_rules"},
        {&CoreRefs::routing_globals, "routing_globals"},
        {&CoreRefs::variable_globals, "variable_globals"},
        {&CoreRefs::owns_buffer, "owns_buffer"},
        {&CoreRefs::base_accumulate, "base_accumulate"},
        {&CoreRefs::call_backward, "call_backward"},
        {&CoreRefs::call_backward_arrays_now, "call_backward_arrays_now"},
    };
    CoreRefs fresh = g;
    for (const auto& f : fields) {
        PyObject* v = PyDict_GetItemString(refs, f.key);
        if (v == nullptr) {
            PyErr_Format(PyExc_KeyError, "core_install: missing %s", f.key);
            return nullptr;
        }
        fresh.*f.member = v;
    }
    PyObject* function_node = PyDict_GetItemString(refs, "FunctionNode");
    if (function_node == nullptr || !PyType_Check(function_node)) {
        PyErr_SetString(PyExc_TypeError, "core_install: expected FunctionNode, a class");
        return nullptr;
    }
    if (!PyList_Check(fresh.trace_active) || !PyList_Check(fresh.route_watch) ||
        !PyDict_Check(fresh.variable_globals) || !PyDict_Check(fresh.checked_signatures) ||
        !PyDict_Check(fresh.size_rules) || !PyDict_Check(fresh.routing_globals) ||
        !PyType_Check(fresh.variable_type) || !PyType_Check(fresh.parameter_type) ||
        !PyType_Check(fresh.node_type)) {
        PyErr_SetString(PyExc_TypeError, "core_install: an entry of the wrong type");
        return nullptr;
    }
    if (fresh.empty == nullptr) {
        fresh.never = PyUnicode_InternFromString("never");
        fresh.autos = PyUnicode_InternFromString("auto");
        fresh.always = PyUnicode_InternFromString("always");
        if (!fresh.never || !fresh.autos || !fresh.always) return nullptr;
        fresh.empty = PyTuple_New(0);
        fresh.zero = PyLong_FromLong(0);
        fresh.one = PyLong_FromLong(1);
        if (!fresh.empty || !fresh.zero || !fresh.one) return nullptr;
    }
    // (kept for the process's life; what a second install replaces leaks)
    for (const auto& f : fields) Py_INCREF(fresh.*f.member);
    g = fresh;
    find_slot_offsets();
    g_installed = true;
    PyTypeObject* type = reinterpret_cast<PyTypeObject*>(function_node);
    Ref apply(PyDescr_NewMethod(type, &apply_def));
    Ref compute(PyDescr_NewMethod(type, &compute_def));
    if (!apply || !compute) return nullptr;
    return PyTuple_Pack(2, apply.p, compute.p);
}

// set_tensor_type(mdarray, plain_views): the Intel64 device's array type
// and the oneDNN module's plain_views, once that module is loaded
// (cpuframe.backends.intel64 tells it).
PyObject* core_set_tensor_type(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyType_Check(args[0]) || !PyCallable_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError,
                        "set_tensor_type: expected (mdarray, plain_views), a type and a function");
        return nullptr;
    }
    PyObject* olds[2] = {g.tensor_type, g.plain_views};
    Py_INCREF(args[0]);
    Py_INCREF(args[1]);
    g.tensor_type = args[0];
    g.plain_views = args[1];
    Py_XDECREF(olds[0]);
    Py_XDECREF(olds[1]);
    Py_RETURN_NONE;
}

PyMethodDef core_defs[] = {
    {"set_tensor_type",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(core_set_tensor_type)),
     METH_FASTCALL,
     "set_tensor_type(mdarray, plain_views): the Intel64 device's array type, which apply takes "
     "as it takes NumPy arrays, and the oneDNN module's plain_views (cpuframe.backends.intel64 "
     "calls it when that module loads)."},
    {"core_install", core_install, METH_O,
     "core_install(refs) -> the native (FunctionNode.apply, FunctionNode._compute) (method "
     "descriptors); refs: the "
     "core's objects it reads, by name (cpuframe.function_node installs it)."},
    {"backprop", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(core_backprop)),
     METH_FASTCALL,
     "backprop(output_nodes, output_grads) -> {leaf node: gradient Variable}, the backward walk "
     "(variable._backprop_python) for its common case, or NotImplemented (before any work) "
     "where the Python walk must run (the native core)."},
    {"set_leaf_grads",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(core_set_leaf_grads)),
     METH_FASTCALL | METH_KEYWORDS,
     "set_leaf_grads(leaf_grads, loss_scale, enable_double_backprop, given=None): "
     "variable._set_leaf_grads_python in C (the native core)."},
    {"of_output", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(core_of_output)),
     METH_FASTCALL,
     "of_output(array, requires_grad) -> Variable._of_output(array, requires_grad) (the native "
     "core)."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef core_module = {PyModuleDef_HEAD_INIT,
                           "_core",
                           "cpuframe's core bookkeeping in C (FunctionNode.apply, "
                           "Variable._of_output); cpuframe.function_node installs it.",
                           -1,
                           core_defs,
                           nullptr,
                           nullptr,
                           nullptr,
                           nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__core() { return PyModule_Create(&core_module); }

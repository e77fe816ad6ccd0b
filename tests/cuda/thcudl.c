/* thcudl: a CPython extension for the DLPack tests on the device (test_cuda_dlpack.py). It links the shared
 * th_cuda and libtensor (no implementation TU of its own), and exchanges CUDA tensors with PyTorch and CuPy:
 *
 *   thcudl.device_count(), thcudl.unavailable_reason()
 *   thcudl.arange(dtype, n)          a CUDA tensor of n elements, element k holding k (as th_tensor_copy converts)
 *   thcudl.from_dlpack(obj)          imports obj.__dlpack__(stream=<this thread's current stream>, ...) or a capsule
 *   thcudl.stream_new()              a new th_cuda stream on device 0: its cudaStream_t as an int (the same number
 *                                    a consumer passes back as __dlpack__'s stream)
 *   thcudl.set_current_stream(ptr)   makes that stream (0: the default one) this thread's current stream
 *   thcudl.synchronize()             waits for this thread's current stream
 *   thcudl.memory_stats()            {"allocations": ..., "allocated_bytes": ..., "events_pending": ...} of device 0
 *   Tensor: __dlpack__(*, stream, max_version, dl_device, copy), __dlpack_device__(), tolist() (floats, via the
 *           host), assign(list) (a host copy in), transpose(), view2(rows, cols), data_ptr, shape, strides, dtype
 *
 * The __dlpack__ stream follows the array API: None or 1 is CUDA's legacy default stream, a stream made by
 * stream_new is honoured through th_cuda_to_dlpack (it waits for our work and the memory is recorded as used
 * there), -1 asks for no synchronisation, and any other stream gets a host-side wait for our current stream
 * (we cannot record a stream we did not make). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tensor.h"
#include "th_cuda.h"

#include <string.h>

#ifndef TH_HAS_DLPACK
#error "thcudl needs DLPack (tests/cuda/meson.build builds it only with <dlpack/dlpack.h>)"
#endif

#define CAPSULE_LEGACY "dltensor"
#define CAPSULE_VERSIONED "dltensor_versioned"

static PyObject *raise_th(void)
{
    PyErr_SetString(PyExc_ValueError, th_last_error()[0] ? th_last_error() : "th_cuda reported no error");
    return NULL;
}

/* ---- streams made here, by their cudaStream_t ---- */

enum { MAX_STREAMS = 16 };
static th_cuda_stream *streams[MAX_STREAMS];

static th_cuda_stream *stream_by_handle(unsigned long long ptr)
{
    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i] && (unsigned long long)(uintptr_t)th_cuda_stream_handle(streams[i]) == ptr) return streams[i];
    return NULL;
}

/* ---- Tensor ---- */

typedef struct {
    PyObject_HEAD
    th_tensor *t;
} TensorObject;

static PyTypeObject TensorType;

static PyObject *wrap(th_tensor *t)
{
    if (!t) return raise_th();
    TensorObject *o = PyObject_New(TensorObject, &TensorType);
    if (!o) {
        th_tensor_release(t);
        return NULL;
    }
    o->t = t;
    return (PyObject *)o;
}

static void tensor_dealloc(TensorObject *self)
{
    th_tensor_release(self->t);
    PyObject_Free(self);
}

static void capsule_delete_legacy(PyObject *capsule)
{
    if (!PyCapsule_IsValid(capsule, CAPSULE_LEGACY)) return; /* consumed: renamed by its consumer */
    DLManagedTensor *m = (DLManagedTensor *)PyCapsule_GetPointer(capsule, CAPSULE_LEGACY);
    if (m && m->deleter) m->deleter(m);
}

static void capsule_delete_versioned(PyObject *capsule)
{
    if (!PyCapsule_IsValid(capsule, CAPSULE_VERSIONED)) return;
    struct DLManagedTensorVersioned *m =
        (struct DLManagedTensorVersioned *)PyCapsule_GetPointer(capsule, CAPSULE_VERSIONED);
    if (m && m->deleter) m->deleter(m);
}

static PyObject *tensor_dlpack(TensorObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOO:__dlpack__", kwlist, &stream, &max_version,
                                     &dl_device, &copy))
        return NULL;
    if (copy == Py_True) {
        PyErr_SetString(PyExc_BufferError, "thcudl exports without copying only");
        return NULL;
    }
    int device = (int)th_storage_device(th_tensor_storage(self->t)).index;
    if (dl_device != Py_None) {
        int type = 0, index = 0;
        if (!PyArg_ParseTuple(dl_device, "ii", &type, &index)) return NULL;
        if (type != kDLCUDA || index != device) {
            PyErr_SetString(PyExc_BufferError, "thcudl exports to its own device only");
            return NULL;
        }
    }
    int major = 0, minor = 0;
    if (max_version != Py_None && !PyArg_ParseTuple(max_version, "ii", &major, &minor)) return NULL;
    bool versioned = max_version != Py_None && major >= 1;
    long long s = 1;
    if (stream != Py_None) {
        s = PyLong_AsLongLong(stream);
        if (s == -1 && PyErr_Occurred()) return NULL;
        if (s == 0) {
            PyErr_SetString(PyExc_ValueError, "stream 0 is ambiguous for CUDA (the array API disallows it)");
            return NULL;
        }
    }
    DLManagedTensor *legacy = NULL;
    struct DLManagedTensorVersioned *ver = NULL;
    if (s == -1) { /* the consumer synchronises itself */
        if (versioned)
            ver = th_tensor_to_dlpack_versioned(self->t);
        else
            legacy = th_tensor_to_dlpack(self->t);
    } else {
        th_cuda_stream *to = s == 1 ? th_cuda_default_stream(device) : stream_by_handle((unsigned long long)s);
        if (!to) { /* a stream we did not make: wait on the host, then hand over on our own stream */
            to = th_cuda_current_stream(device);
            if (!to || th_cuda_stream_synchronize(to)) return raise_th();
        }
        if (versioned)
            ver = th_cuda_to_dlpack_versioned(self->t, to);
        else
            legacy = th_cuda_to_dlpack(self->t, to);
    }
    if (!legacy && !ver) return raise_th();
    PyObject *capsule = versioned ? PyCapsule_New(ver, CAPSULE_VERSIONED, capsule_delete_versioned)
                                  : PyCapsule_New(legacy, CAPSULE_LEGACY, capsule_delete_legacy);
    if (!capsule) {
        if (ver) ver->deleter(ver);
        if (legacy) legacy->deleter(legacy);
    }
    return capsule;
}

static PyObject *tensor_dlpack_device(TensorObject *self, PyObject *unused)
{
    (void)unused;
    return Py_BuildValue("(ii)", (int)kDLCUDA, (int)th_storage_device(th_tensor_storage(self->t)).index);
}

/* The elements as Python floats, read through a host copy converted to f64 (complex dtypes: the real part). */
static PyObject *tensor_tolist(TensorObject *self, PyObject *unused)
{
    (void)unused;
    th_tensor *t = self->t;
    int64_t n = th_tensor_numel(t);
    th_f64_tensor *host = th_f64_empty(th_tensor_ndim(t), th_tensor_sizes(t));
    if (!host || th_cuda_copy(th_f64_base(host), t)) {
        th_f64_release(host);
        return raise_th();
    }
    const double *d = th_f64_data(host);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (int64_t k = 0; list && k < n; k++) PyList_SET_ITEM(list, (Py_ssize_t)k, PyFloat_FromDouble(d[k]));
    th_f64_release(host);
    return list;
}

/* Writes a flat list of numbers (row-major over the shape) into the tensor, through a host f64 tensor. */
static PyObject *tensor_assign(TensorObject *self, PyObject *arg)
{
    th_tensor *t = self->t;
    int64_t n = th_tensor_numel(t);
    PyObject *seq = PySequence_Fast(arg, "assign takes a sequence of numbers");
    if (!seq) return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != (Py_ssize_t)n) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "assign: wrong number of values");
        return NULL;
    }
    th_f64_tensor *host = th_f64_empty(th_tensor_ndim(t), th_tensor_sizes(t));
    double *d = host ? th_f64_data(host) : NULL;
    for (int64_t k = 0; d && k < n; k++) d[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)k));
    Py_DECREF(seq);
    if (PyErr_Occurred() || !host || th_cuda_copy(t, th_f64_base(host))) {
        th_f64_release(host);
        return PyErr_Occurred() ? NULL : raise_th();
    }
    th_f64_release(host);
    Py_RETURN_NONE;
}

/* Views over the same storage, made from the tensor's fields (the view functions are typed). */
static PyObject *tensor_transpose(TensorObject *self, PyObject *unused)
{
    (void)unused;
    th_tensor *t = self->t;
    if (th_tensor_ndim(t) != 2) {
        PyErr_SetString(PyExc_ValueError, "transpose: a 2-d tensor only");
        return NULL;
    }
    const int64_t *sz = th_tensor_sizes(t), *st = th_tensor_strides(t);
    return wrap(th_tensor_new_with_storage(th_tensor_dtype(t), th_tensor_storage(t), th_tensor_offset(t), 2,
                                           (int64_t[]){sz[1], sz[0]}, (int64_t[]){st[1], st[0]}));
}

/* A rows x cols row-major view of a contiguous tensor. */
static PyObject *tensor_view2(TensorObject *self, PyObject *args)
{
    long long rows, cols;
    if (!PyArg_ParseTuple(args, "LL:view2", &rows, &cols)) return NULL;
    th_tensor *t = self->t;
    if (!th_tensor_is_contiguous(t) || rows * cols != th_tensor_numel(t)) {
        PyErr_SetString(PyExc_ValueError, "view2: a contiguous tensor of rows * cols elements only");
        return NULL;
    }
    return wrap(th_tensor_new_with_storage(th_tensor_dtype(t), th_tensor_storage(t), th_tensor_offset(t), 2,
                                           (int64_t[]){rows, cols}, (int64_t[]){cols, 1}));
}

static PyObject *tuple_of(const int64_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v[i]));
    return t;
}

static PyObject *tensor_get_shape(TensorObject *self, void *c)
{
    (void)c;
    return tuple_of(th_tensor_sizes(self->t), th_tensor_ndim(self->t));
}

static PyObject *tensor_get_strides(TensorObject *self, void *c)
{
    (void)c;
    return tuple_of(th_tensor_strides(self->t), th_tensor_ndim(self->t));
}

static PyObject *tensor_get_dtype(TensorObject *self, void *c)
{
    (void)c;
    return PyUnicode_FromString(th_dtype_name(th_tensor_dtype(self->t)));
}

static PyObject *tensor_get_data_ptr(TensorObject *self, void *c)
{
    (void)c;
    return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)th_tensor_data(self->t));
}

static PyMethodDef tensor_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))tensor_dlpack, METH_VARARGS | METH_KEYWORDS, NULL},
    {"__dlpack_device__", (PyCFunction)tensor_dlpack_device, METH_NOARGS, NULL},
    {"tolist", (PyCFunction)tensor_tolist, METH_NOARGS, NULL},
    {"assign", (PyCFunction)tensor_assign, METH_O, NULL},
    {"transpose", (PyCFunction)tensor_transpose, METH_NOARGS, NULL},
    {"view2", (PyCFunction)tensor_view2, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef tensor_getset[] = {
    {"shape", (getter)tensor_get_shape, NULL, NULL, NULL},
    {"strides", (getter)tensor_get_strides, NULL, NULL, NULL},
    {"dtype", (getter)tensor_get_dtype, NULL, NULL, NULL},
    {"data_ptr", (getter)tensor_get_data_ptr, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TensorType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "thcudl.Tensor",
    .tp_basicsize = sizeof(TensorObject),
    .tp_dealloc = (destructor)tensor_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = tensor_methods,
    .tp_getset = tensor_getset,
};

/* ---- module functions ---- */

static PyObject *mod_device_count(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    return PyLong_FromLong(th_cuda_device_count());
}

static PyObject *mod_unavailable_reason(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    const char *why = th_cuda_unavailable_reason();
    if (!why) Py_RETURN_NONE;
    return PyUnicode_FromString(why);
}

static PyObject *mod_arange(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name;
    long long n;
    if (!PyArg_ParseTuple(args, "sL:arange", &name, &n)) return NULL;
    th_dtype dtype = TH_NUM_DTYPES;
    for (int d = 0; d < TH_NUM_DTYPES; d++)
        if (strcmp(th_dtype_name((th_dtype)d), name) == 0) dtype = (th_dtype)d;
    if (dtype == TH_NUM_DTYPES) {
        PyErr_Format(PyExc_ValueError, "no dtype %s", name);
        return NULL;
    }
    th_f64_tensor *k = th_f64_arange(0, (double)n, 1);
    th_tensor *t = k ? th_cuda_empty(dtype, 0, 1, (int64_t[]){n}) : NULL;
    if (t && th_cuda_copy(t, th_f64_base(k))) {
        th_tensor_release(t);
        t = NULL;
    }
    th_f64_release(k);
    return wrap(t);
}

static PyObject *import_capsule(PyObject *capsule)
{
    if (PyCapsule_IsValid(capsule, CAPSULE_VERSIONED)) {
        struct DLManagedTensorVersioned *mv =
            (struct DLManagedTensorVersioned *)PyCapsule_GetPointer(capsule, CAPSULE_VERSIONED);
        if (!mv || PyCapsule_SetName(capsule, "used_dltensor_versioned")) return NULL;
        return wrap(th_tensor_from_dlpack_versioned(mv)); /* on error the import has run the deleter */
    }
    if (PyCapsule_IsValid(capsule, CAPSULE_LEGACY)) {
        DLManagedTensor *ml = (DLManagedTensor *)PyCapsule_GetPointer(capsule, CAPSULE_LEGACY);
        if (!ml || PyCapsule_SetName(capsule, "used_dltensor")) return NULL;
        return wrap(th_tensor_from_dlpack(ml));
    }
    PyErr_SetString(PyExc_TypeError, "not an unconsumed DLPack capsule");
    return NULL;
}

static PyObject *mod_from_dlpack(PyObject *m, PyObject *obj)
{
    (void)m;
    if (PyCapsule_CheckExact(obj)) return import_capsule(obj);
    /* The producer makes our current stream wait for its work: name it (1 for CUDA's legacy default). */
    void *h = th_cuda_stream_handle(th_cuda_current_stream(0));
    unsigned long long s = h ? (unsigned long long)(uintptr_t)h : 1;
    PyObject *method = PyObject_GetAttrString(obj, "__dlpack__");
    if (!method) return NULL;
    PyObject *noargs = PyTuple_New(0);
    PyObject *kw = Py_BuildValue("{s:K,s:(ii)}", "stream", s, "max_version", TH_DLPACK_MAJOR, TH_DLPACK_MINOR);
    PyObject *capsule = noargs && kw ? PyObject_Call(method, noargs, kw) : NULL;
    Py_XDECREF(kw);
    if (!capsule && PyErr_ExceptionMatches(PyExc_TypeError)) { /* a producer before DLPack 1.0's max_version */
        PyErr_Clear();
        kw = Py_BuildValue("{s:K}", "stream", s);
        capsule = kw ? PyObject_Call(method, noargs, kw) : NULL;
        Py_XDECREF(kw);
    }
    Py_XDECREF(noargs);
    Py_DECREF(method);
    if (!capsule) return NULL;
    PyObject *r = import_capsule(capsule);
    Py_DECREF(capsule);
    return r;
}

static PyObject *mod_stream_new(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    for (int i = 0; i < MAX_STREAMS; i++)
        if (!streams[i]) {
            streams[i] = th_cuda_stream_new(0);
            if (!streams[i]) return raise_th();
            return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)th_cuda_stream_handle(streams[i]));
        }
    PyErr_SetString(PyExc_RuntimeError, "thcudl: too many streams");
    return NULL;
}

static PyObject *mod_set_current_stream(PyObject *m, PyObject *arg)
{
    (void)m;
    unsigned long long ptr = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred()) return NULL;
    th_cuda_stream *s = ptr ? stream_by_handle(ptr) : th_cuda_default_stream(0);
    if (!s) {
        PyErr_SetString(PyExc_ValueError, "not a stream made by thcudl.stream_new");
        return NULL;
    }
    if (th_cuda_set_current_stream(s)) return raise_th();
    Py_RETURN_NONE;
}

static PyObject *mod_synchronize(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    if (th_cuda_stream_synchronize(th_cuda_current_stream(0))) return raise_th();
    Py_RETURN_NONE;
}

static PyObject *mod_memory_stats(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    th_cuda_memory_stats s;
    if (th_cuda_get_memory_stats(0, &s)) return raise_th();
    return Py_BuildValue("{s:L,s:L,s:L}", "allocations", (long long)s.allocations[TH_CUDA_POOL_ALL].current,
                         "allocated_bytes", (long long)s.allocated_bytes[TH_CUDA_POOL_ALL].current,
                         "events_pending", (long long)s.events_pending);
}

static PyMethodDef module_methods[] = {
    {"device_count", mod_device_count, METH_NOARGS, NULL},
    {"unavailable_reason", mod_unavailable_reason, METH_NOARGS, NULL},
    {"arange", mod_arange, METH_VARARGS, NULL},
    {"from_dlpack", mod_from_dlpack, METH_O, NULL},
    {"stream_new", mod_stream_new, METH_NOARGS, NULL},
    {"set_current_stream", mod_set_current_stream, METH_O, NULL},
    {"synchronize", mod_synchronize, METH_NOARGS, NULL},
    {"memory_stats", mod_memory_stats, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "thcudl", NULL, -1, module_methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_thcudl(void)
{
    if (PyType_Ready(&TensorType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&TensorType);
    if (PyModule_AddObject(m, "Tensor", (PyObject *)&TensorType) < 0) {
        Py_DECREF(&TensorType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

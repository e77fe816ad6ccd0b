/* thdl: a small CPython extension for the DLPack interop tests (test_interop.py).
 *
 * thdl.Tensor wraps a th_tensor and is a DLPack producer following the Python array API: __dlpack__(*,
 * stream=None, max_version=None, dl_device=None, copy=None) and __dlpack_device__(). thdl.from_dlpack(obj)
 * is a consumer: it takes a capsule, or asks an object with __dlpack__ for one, and imports it with
 * th_tensor_from_dlpack[_versioned]. The rest is for the tests to look at and change elements:
 *
 *   thdl.arange(dtype, shape)   a tensor over a malloc'd blob (th_<sfx>_from_blob) whose deleter counts frees;
 *                               element k is k (integers wrap), k % 2 for bool, k - k*1j for complex; a
 *                               zero-size one is made over NULL data (its blob is still made and counted)
 *   thdl.blobs_alive()          blobs made by arange and not yet freed; blob_stats() says more
 *   thdl.read_only(t)           makes t's storage read-only
 *   thdl.capsule_info(cap)      the fields of an unconsumed capsule's DLTensor, without consuming it
 *   thdl.export_raw(t, ...)     a capsule over t with fields changed on purpose (import errors, NULL strides,
 *                               byte_offset)
 *   t.shape, t.strides (elements), t.dtype ("f32"), t.ndim, t.numel, t.data_ptr, t.read_only, t.is_contiguous
 *   t.get(idx), t.set(idx, value), t.tolist(), t.transpose(d0, d1), t.narrow(dim, start, length),
 *   t.select(dim, index), t.as_strided(sizes, strides, offset), t.clone()
 *
 * Capsule destructors are C (a Python one can skip the deleter on an error path, numpy#32697) and call the
 * deleter only while the capsule still has its producer name: a consumer that took it renamed it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define TH_IMPLEMENTATION
#include "tensor.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifndef TH_HAS_DLPACK
#error "thdl needs DLPack: install libdlpack-dev (tests/python/meson.build skips thdl without it)"
#endif

#define CAPSULE_LEGACY "dltensor"
#define CAPSULE_VERSIONED "dltensor_versioned"
#define CAPSULE_LEGACY_USED "used_dltensor"
#define CAPSULE_VERSIONED_USED "used_dltensor_versioned"

/* ---- errors ---- */

/* Raises the exception that fits the library's last error and returns NULL. */
static PyObject *raise_th(void)
{
    PyObject *type;
    switch (th_last_status()) {
    case TH_ERR_RANGE: type = PyExc_IndexError; break;
    case TH_ERR_NOMEM: type = PyExc_MemoryError; break;
    case TH_ERR_DTYPE: type = PyExc_TypeError; break;
    default: type = PyExc_ValueError; break;
    }
    PyErr_SetString(type, th_last_error()[0] ? th_last_error() : "tensor.h reported no error");
    return NULL;
}

/* ---- blobs whose frees are counted ---- */

static atomic_long blobs_alive, blobs_made, blobs_freed, blob_mismatches;

/* Deleters may run on any thread and without the GIL: only atomics here. ctx is the blob; data is what the
 * tensor was made over: the blob, or NULL for a zero-size tensor. */
static void blob_free(void *data, void *ctx)
{
    if (data && data != ctx) atomic_fetch_add(&blob_mismatches, 1); /* the library must hand back our pointer */
    free(ctx);
    atomic_fetch_sub(&blobs_alive, 1);
    atomic_fetch_add(&blobs_freed, 1);
}

/* ---- the Tensor type ---- */

typedef struct {
    PyObject_HEAD
    th_tensor *t;
} TensorObject;

static PyTypeObject TensorType;

/* A new Tensor that owns t (one reference); raises the library's error for a NULL t. */
static PyObject *wrap_tensor(th_tensor *t)
{
    if (!t) return raise_th();
    TensorObject *self = PyObject_New(TensorObject, &TensorType);
    if (!self) {
        th_tensor_release(t);
        return NULL;
    }
    self->t = t;
    return (PyObject *)self;
}

static void Tensor_dealloc(TensorObject *self)
{
    th_tensor_release(self->t);
    PyObject_Free(self);
}

static th_tensor *tensor_of(PyObject *obj)
{
    if (!PyObject_TypeCheck(obj, &TensorType)) {
        PyErr_Format(PyExc_TypeError, "expected a thdl.Tensor, got %.100s", Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return ((TensorObject *)obj)->t;
}

/* ---- argument parsing ---- */

static int parse_dtype(PyObject *name, th_dtype *out)
{
    const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
    if (!s) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "dtype must be a name such as 'f32'");
        return -1;
    }
    for (int d = 0; d < TH_NUM_DTYPES; d++) {
        if (strcmp(th_dtype_name((th_dtype)d), s) == 0 && th_dtype_info((th_dtype)d)->stamped) {
            *out = (th_dtype)d;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "unknown dtype '%s'", s);
    return -1;
}

/* A sequence of at most TH_MAX_DIMS ints; returns how many, or -1 with an exception. An int alone counts as
 * a sequence of one when allow_int. */
static int parse_ints(PyObject *obj, int64_t *out, const char *what, bool allow_int)
{
    if (allow_int && PyLong_Check(obj)) {
        long long v = PyLong_AsLongLong(obj);
        if (v == -1 && PyErr_Occurred()) return -1;
        out[0] = v;
        return 1;
    }
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > TH_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: %zd entries, more than TH_MAX_DIMS (%d)", what, n, TH_MAX_DIMS);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        out[i] = v;
    }
    Py_DECREF(seq);
    return (int)n;
}

/* An index of exactly ndim entries (an int for 1-d, () for 0-d). */
static int parse_index(th_tensor *t, PyObject *obj, int64_t *idx)
{
    int n = parse_ints(obj, idx, "an index must be an int or a sequence of ints", true);
    if (n < 0) return -1;
    if (n != th_tensor_ndim(t)) {
        PyErr_Format(PyExc_IndexError, "%d indices for a %d-d tensor", n, th_tensor_ndim(t));
        return -1;
    }
    return 0;
}

static PyObject *int64_tuple(int n, const int64_t *v)
{
    PyObject *tuple = PyTuple_New(n);
    if (!tuple) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, x);
    }
    return tuple;
}

/* ---- elements to and from Python ---- */

static PyObject *box_bool(bool v) { return PyBool_FromLong(v); }
static PyObject *box_u8(uint8_t v) { return PyLong_FromLong(v); }
static PyObject *box_i8(int8_t v) { return PyLong_FromLong(v); }
static PyObject *box_i16(int16_t v) { return PyLong_FromLong(v); }
static PyObject *box_i32(int32_t v) { return PyLong_FromLong(v); }
static PyObject *box_i64(int64_t v) { return PyLong_FromLongLong(v); }
static PyObject *box_f16(th_float16 v) { return PyFloat_FromDouble(th_float16_to_float(v)); }
static PyObject *box_bf16(th_bfloat16 v) { return PyFloat_FromDouble(th_bfloat16_to_float(v)); }
static PyObject *box_f32(float v) { return PyFloat_FromDouble(v); }
static PyObject *box_f64(double v) { return PyFloat_FromDouble(v); }

/* C11 lays a complex number out as an array of its real and imaginary parts. */
static PyObject *box_c64(th_complex64 v)
{
    float parts[2];
    memcpy(parts, &v, sizeof parts);
    return PyComplex_FromDoubles(parts[0], parts[1]);
}

static PyObject *box_c128(th_complex128 v)
{
    double parts[2];
    memcpy(parts, &v, sizeof parts);
    return PyComplex_FromDoubles(parts[0], parts[1]);
}

static int unbox_bool(PyObject *o, bool *out)
{
    int r = PyObject_IsTrue(o);
    if (r < 0) return -1;
    *out = r != 0;
    return 0;
}

/* An integer (not a float) in lo..hi. */
static int unbox_integer(PyObject *o, long long lo, long long hi, long long *out)
{
    PyObject *index = PyNumber_Index(o);
    if (!index) return -1;
    long long v = PyLong_AsLongLong(index);
    Py_DECREF(index);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_OverflowError, "%lld is outside %lld..%lld", v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

#define THDL_UNBOX_INT(sfx, type, lo, hi)                                \
    static int unbox_##sfx(PyObject *o, type *out)                       \
    {                                                                    \
        long long v;                                                     \
        if (unbox_integer(o, lo, hi, &v)) return -1;                     \
        *out = (type)v;                                                  \
        return 0;                                                        \
    }
THDL_UNBOX_INT(u8, uint8_t, 0, UINT8_MAX)
THDL_UNBOX_INT(i8, int8_t, INT8_MIN, INT8_MAX)
THDL_UNBOX_INT(i16, int16_t, INT16_MIN, INT16_MAX)
THDL_UNBOX_INT(i32, int32_t, INT32_MIN, INT32_MAX)
THDL_UNBOX_INT(i64, int64_t, INT64_MIN, INT64_MAX)
#undef THDL_UNBOX_INT

static int unbox_double(PyObject *o, double *out)
{
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) return -1;
    *out = d;
    return 0;
}

static int unbox_f16(PyObject *o, th_float16 *out)
{
    double d;
    if (unbox_double(o, &d)) return -1;
    *out = th_float16_from_double(d);
    return 0;
}

static int unbox_bf16(PyObject *o, th_bfloat16 *out)
{
    double d;
    if (unbox_double(o, &d)) return -1;
    *out = th_bfloat16_from_double(d);
    return 0;
}

static int unbox_f32(PyObject *o, float *out)
{
    double d;
    if (unbox_double(o, &d)) return -1;
    *out = (float)d;
    return 0;
}

static int unbox_f64(PyObject *o, double *out) { return unbox_double(o, out); }

static int unbox_c64(PyObject *o, th_complex64 *out)
{
    Py_complex c = PyComplex_AsCComplex(o);
    if (c.real == -1.0 && PyErr_Occurred()) return -1;
    float parts[2] = {(float)c.real, (float)c.imag};
    memcpy(out, parts, sizeof parts);
    return 0;
}

static int unbox_c128(PyObject *o, th_complex128 *out)
{
    Py_complex c = PyComplex_AsCComplex(o);
    if (c.real == -1.0 && PyErr_Occurred()) return -1;
    double parts[2] = {c.real, c.imag};
    memcpy(out, parts, sizeof parts);
    return 0;
}

/* The element at idx of any dtype as a Python bool, int, float or complex. Every case names its suffix
 * directly: bool is a macro, so the suffix must be pasted before anything expands it. */
static PyObject *get_element(th_tensor *t, const int64_t *idx)
{
    th_clear_error();
    PyObject *value = NULL;
    switch (th_tensor_dtype(t)) {
#define THDL_GET(sfx, ENUM, ...) \
    case TH_##ENUM: value = box_##sfx(th_##sfx##_get(th_##sfx##_from_base(t), idx)); break;
        TH_FOREACH_DTYPE(THDL_GET)
#undef THDL_GET
    default: PyErr_SetString(PyExc_TypeError, "unknown dtype"); return NULL;
    }
    if (th_last_status() != TH_OK) {
        Py_XDECREF(value);
        return raise_th();
    }
    return value;
}

static int set_element(th_tensor *t, const int64_t *idx, PyObject *obj)
{
    switch (th_tensor_dtype(t)) {
#define THDL_SET(sfx, ENUM, elem, ...)                                               \
    case TH_##ENUM: {                                                                \
        elem v;                                                                      \
        if (unbox_##sfx(obj, &v)) return -1;                                         \
        if (th_##sfx##_set(th_##sfx##_from_base(t), idx, v) != TH_OK) {              \
            raise_th();                                                              \
            return -1;                                                               \
        }                                                                            \
        return 0;                                                                    \
    }
        TH_FOREACH_DTYPE(THDL_SET)
#undef THDL_SET
    default: PyErr_SetString(PyExc_TypeError, "unknown dtype"); return -1;
    }
}

/* ---- dtype dispatch for views and copies ---- */

static th_tensor *do_transpose(th_tensor *t, int d0, int d1)
{
    switch (th_tensor_dtype(t)) {
#define THDL_CASE(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_transpose(th_##sfx##_from_base(t), d0, d1));
        TH_FOREACH_DTYPE(THDL_CASE)
#undef THDL_CASE
    default: return NULL;
    }
}

static th_tensor *do_narrow(th_tensor *t, int dim, int64_t start, int64_t length)
{
    switch (th_tensor_dtype(t)) {
#define THDL_CASE(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_narrow(th_##sfx##_from_base(t), dim, start, length));
        TH_FOREACH_DTYPE(THDL_CASE)
#undef THDL_CASE
    default: return NULL;
    }
}

static th_tensor *do_select(th_tensor *t, int dim, int64_t index)
{
    switch (th_tensor_dtype(t)) {
#define THDL_CASE(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_select(th_##sfx##_from_base(t), dim, index));
        TH_FOREACH_DTYPE(THDL_CASE)
#undef THDL_CASE
    default: return NULL;
    }
}

static th_tensor *do_as_strided(th_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset)
{
    switch (th_tensor_dtype(t)) {
#define THDL_CASE(sfx, ENUM, ...)                                                                          \
    case TH_##ENUM:                                                                                        \
        return th_##sfx##_base(th_##sfx##_as_strided(th_##sfx##_from_base(t), ndim, sizes, strides, offset));
        TH_FOREACH_DTYPE(THDL_CASE)
#undef THDL_CASE
    default: return NULL;
    }
}

static th_tensor *do_clone(th_tensor *t)
{
    switch (th_tensor_dtype(t)) {
#define THDL_CASE(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_clone(th_##sfx##_from_base(t)));
        TH_FOREACH_DTYPE(THDL_CASE)
#undef THDL_CASE
    default: return NULL;
    }
}

/* A tensor over data, whose deleter frees blob (data is blob, or NULL for no elements). NULL without running
 * the deleter on error. */
static th_tensor *do_from_blob(th_dtype dtype, void *data, void *blob, int ndim, const int64_t *sizes)
{
    switch (dtype) {
#define THDL_CASE(sfx, ENUM, elem, ...)                                                                    \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_from_blob((elem *)data, ndim, sizes, NULL, blob_free, blob));
        TH_FOREACH_DTYPE(THDL_CASE)
#undef THDL_CASE
    default: return NULL;
    }
}

/* ---- DLPack: capsules ---- */

static void capsule_delete_legacy(PyObject *capsule)
{
    /* Renamed by a consumer that took it: the consumer owns it now. */
    if (!PyCapsule_IsValid(capsule, CAPSULE_LEGACY)) return;
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

/* A capsule that owns m; if the capsule cannot be made, m's deleter runs. */
static PyObject *capsule_legacy(DLManagedTensor *m)
{
    if (!m) return raise_th();
    PyObject *capsule = PyCapsule_New(m, CAPSULE_LEGACY, capsule_delete_legacy);
    if (!capsule && m->deleter) m->deleter(m);
    return capsule;
}

static PyObject *capsule_versioned(struct DLManagedTensorVersioned *m)
{
    if (!m) return raise_th();
    PyObject *capsule = PyCapsule_New(m, CAPSULE_VERSIONED, capsule_delete_versioned);
    if (!capsule && m->deleter) m->deleter(m);
    return capsule;
}

/* (a, b) of two ints, for max_version and dl_device. */
static int parse_pair(PyObject *obj, const char *what, long *a, long *b)
{
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2 || !PyLong_Check(PyTuple_GET_ITEM(obj, 0)) ||
        !PyLong_Check(PyTuple_GET_ITEM(obj, 1))) {
        PyErr_Format(PyExc_TypeError, "%s must be None or a tuple of two ints, not %R", what, obj);
        return -1;
    }
    *a = PyLong_AsLong(PyTuple_GET_ITEM(obj, 0));
    if (*a == -1 && PyErr_Occurred()) return -1;
    *b = PyLong_AsLong(PyTuple_GET_ITEM(obj, 1));
    if (*b == -1 && PyErr_Occurred()) return -1;
    return 0;
}

/* __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None), as the Python array API says:
 * a legacy "dltensor" capsule unless max_version is (1, x) or later; BufferError for what cannot be exported
 * (another device; copy=False when a copy would be needed); copy=True exports a clone (IS_COPIED in the
 * versioned form). A read-only tensor goes out versioned with READ_ONLY; a legacy capsule cannot say
 * read-only, so it gets a copy (copy=None) or a BufferError (copy=False). */
static PyObject *Tensor_dlpack(TensorObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOO:__dlpack__", kwlist, &stream, &max_version, &dl_device,
                                     &copy))
        return NULL;
    th_device device = th_storage_device(th_tensor_storage(self->t));
    if (stream != Py_None) {
        /* Host memory has no streams: the array API says a consumer passes None for it. */
        PyErr_Format(PyExc_ValueError, "stream must be None for host memory (device type %d), not %R",
                     (int)device.type, stream);
        return NULL;
    }
    bool versioned = false;
    if (max_version != Py_None) {
        long major, minor;
        if (parse_pair(max_version, "max_version", &major, &minor)) return NULL;
        versioned = major >= 1;
    }
    if (copy != Py_None && !PyBool_Check(copy)) {
        PyErr_Format(PyExc_TypeError, "copy must be None, True or False, not %R", copy);
        return NULL;
    }
    if (dl_device != Py_None) {
        long type, index;
        if (parse_pair(dl_device, "dl_device", &type, &index)) return NULL;
        if (type != device.type || index != device.index) {
            PyErr_Format(PyExc_BufferError,
                         "cannot export to device (%ld, %ld): the tensor is on (%d, %d) and thdl does not copy "
                         "between devices%s",
                         type, index, (int)device.type, (int)device.index,
                         copy == Py_False ? " (and copy=False forbids a copy)" : "");
            return NULL;
        }
    }
    bool read_only = th_storage_is_read_only(th_tensor_storage(self->t));
    bool want_copy = copy == Py_True;
    if (read_only && !versioned) {
        if (copy == Py_False) {
            PyErr_SetString(PyExc_BufferError,
                            "a read-only tensor needs a copy for a legacy capsule, which cannot say read-only, and "
                            "copy=False forbids one (ask max_version=(1, 0))");
            return NULL;
        }
        want_copy = true;
    }
    th_tensor *out = want_copy ? do_clone(self->t) : th_tensor_retain(self->t);
    if (!out) return raise_th();
    PyObject *capsule;
    if (versioned) {
        struct DLManagedTensorVersioned *m = th_tensor_to_dlpack_versioned(out);
        if (m && want_copy) m->flags |= DLPACK_FLAG_BITMASK_IS_COPIED;
        capsule = capsule_versioned(m);
    } else {
        capsule = capsule_legacy(th_tensor_to_dlpack(out));
    }
    th_tensor_release(out); /* the export holds its own reference */
    return capsule;
}

static PyObject *Tensor_dlpack_device(TensorObject *self, PyObject *unused)
{
    (void)unused;
    th_device device = th_storage_device(th_tensor_storage(self->t));
    return Py_BuildValue("(ii)", (int)device.type, (int)device.index);
}

/* ---- DLPack: the consumer ---- */

/* Imports a capsule: renames it first, so its destructor never calls the deleter, then hands the managed
 * tensor to tensor.h, which owns it from then on, even when the import fails. */
static PyObject *import_capsule(PyObject *capsule)
{
    if (PyCapsule_IsValid(capsule, CAPSULE_VERSIONED)) {
        struct DLManagedTensorVersioned *m =
            (struct DLManagedTensorVersioned *)PyCapsule_GetPointer(capsule, CAPSULE_VERSIONED);
        if (!m || PyCapsule_SetName(capsule, CAPSULE_VERSIONED_USED)) return NULL;
        th_tensor *t = th_tensor_from_dlpack_versioned(m);
        if (!t) return PyErr_Format(PyExc_BufferError, "%s", th_last_error()); /* the deleter already ran */
        return wrap_tensor(t);
    }
    if (PyCapsule_IsValid(capsule, CAPSULE_LEGACY)) {
        DLManagedTensor *m = (DLManagedTensor *)PyCapsule_GetPointer(capsule, CAPSULE_LEGACY);
        if (!m || PyCapsule_SetName(capsule, CAPSULE_LEGACY_USED)) return NULL;
        th_tensor *t = th_tensor_from_dlpack(m);
        if (!t) return PyErr_Format(PyExc_BufferError, "%s", th_last_error());
        return wrap_tensor(t);
    }
    const char *name = PyCapsule_GetName(capsule);
    if (!name && PyErr_Occurred()) return NULL;
    return PyErr_Format(PyExc_BufferError, "not an unconsumed DLPack capsule (named \"%s\")", name ? name : "");
}

static PyObject *thdl_from_dlpack(PyObject *module, PyObject *obj)
{
    (void)module;
    if (PyCapsule_CheckExact(obj)) return import_capsule(obj);
    PyObject *dlpack = PyObject_GetAttrString(obj, "__dlpack__");
    if (!dlpack) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return NULL;
        PyErr_Clear();
        return PyErr_Format(PyExc_TypeError, "%.100s has no __dlpack__ and is no capsule", Py_TYPE(obj)->tp_name);
    }
    /* The device first, as the protocol says; only host memory can be imported here. */
    PyObject *device_fn = PyObject_GetAttrString(obj, "__dlpack_device__");
    if (device_fn) {
        PyObject *device = PyObject_CallNoArgs(device_fn);
        Py_DECREF(device_fn);
        long type, index;
        if (!device || parse_pair(device, "__dlpack_device__()", &type, &index)) {
            Py_XDECREF(device);
            Py_DECREF(dlpack);
            return NULL;
        }
        Py_DECREF(device);
        if (!th_device_is_host((th_device){(int32_t)type, (int32_t)index})) {
            Py_DECREF(dlpack);
            return PyErr_Format(PyExc_BufferError, "device type %ld is not memory the host can touch", type);
        }
    } else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
    } else {
        Py_DECREF(dlpack);
        return NULL;
    }
    /* Ask for DLPack 1.0; a producer that predates max_version raises TypeError: ask again without it. */
    PyObject *kwargs = Py_BuildValue("{s:(ii)}", "max_version", TH_DLPACK_MAJOR, TH_DLPACK_MINOR);
    if (!kwargs) {
        Py_DECREF(dlpack);
        return NULL;
    }
    PyObject *empty = PyTuple_New(0);
    PyObject *capsule = empty ? PyObject_Call(dlpack, empty, kwargs) : NULL;
    Py_XDECREF(empty);
    Py_DECREF(kwargs);
    if (!capsule && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        capsule = PyObject_CallNoArgs(dlpack);
    }
    Py_DECREF(dlpack);
    if (!capsule) return NULL;
    PyObject *result = PyCapsule_CheckExact(capsule)
                           ? import_capsule(capsule)
                           : PyErr_Format(PyExc_TypeError, "__dlpack__ returned %.100s, not a capsule",
                                          Py_TYPE(capsule)->tp_name);
    Py_DECREF(capsule);
    return result;
}

/* ---- Tensor: attributes and methods ---- */

static PyObject *Tensor_get_shape(TensorObject *self, void *closure)
{
    (void)closure;
    return int64_tuple(th_tensor_ndim(self->t), th_tensor_sizes(self->t));
}

static PyObject *Tensor_get_strides(TensorObject *self, void *closure)
{
    (void)closure;
    return int64_tuple(th_tensor_ndim(self->t), th_tensor_strides(self->t));
}

static PyObject *Tensor_get_dtype(TensorObject *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(th_dtype_name(th_tensor_dtype(self->t)));
}

static PyObject *Tensor_get_ndim(TensorObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(th_tensor_ndim(self->t));
}

static PyObject *Tensor_get_numel(TensorObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLongLong(th_tensor_numel(self->t));
}

static PyObject *Tensor_get_data_ptr(TensorObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(th_tensor_data(self->t));
}

static PyObject *Tensor_get_read_only(TensorObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(th_storage_is_read_only(th_tensor_storage(self->t)));
}

static PyObject *Tensor_get_is_contiguous(TensorObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(th_tensor_is_contiguous(self->t));
}

static PyObject *Tensor_get(TensorObject *self, PyObject *index)
{
    int64_t idx[TH_MAX_DIMS];
    if (parse_index(self->t, index, idx)) return NULL;
    return get_element(self->t, idx);
}

static PyObject *Tensor_set(TensorObject *self, PyObject *args)
{
    PyObject *index, *value;
    if (!PyArg_ParseTuple(args, "OO:set", &index, &value)) return NULL;
    int64_t idx[TH_MAX_DIMS];
    if (parse_index(self->t, index, idx) || set_element(self->t, idx, value)) return NULL;
    Py_RETURN_NONE;
}

/* Nested lists of the elements from dim d on (idx holds the indices of the dims before d). */
static PyObject *tolist_from(th_tensor *t, int d, int64_t *idx)
{
    if (d == th_tensor_ndim(t)) return get_element(t, idx);
    int64_t n = th_tensor_sizes(t)[d];
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list) return NULL;
    for (int64_t i = 0; i < n; i++) {
        idx[d] = i;
        PyObject *item = tolist_from(t, d + 1, idx);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *Tensor_tolist(TensorObject *self, PyObject *unused)
{
    (void)unused;
    int64_t idx[TH_MAX_DIMS] = {0};
    return tolist_from(self->t, 0, idx);
}

static PyObject *Tensor_transpose(TensorObject *self, PyObject *args)
{
    int d0, d1;
    if (!PyArg_ParseTuple(args, "ii:transpose", &d0, &d1)) return NULL;
    return wrap_tensor(do_transpose(self->t, d0, d1));
}

static PyObject *Tensor_narrow(TensorObject *self, PyObject *args)
{
    int dim;
    long long start, length;
    if (!PyArg_ParseTuple(args, "iLL:narrow", &dim, &start, &length)) return NULL;
    return wrap_tensor(do_narrow(self->t, dim, start, length));
}

static PyObject *Tensor_select(TensorObject *self, PyObject *args)
{
    int dim;
    long long index;
    if (!PyArg_ParseTuple(args, "iL:select", &dim, &index)) return NULL;
    return wrap_tensor(do_select(self->t, dim, index));
}

static PyObject *Tensor_as_strided(TensorObject *self, PyObject *args)
{
    PyObject *sizes_obj, *strides_obj;
    long long offset;
    if (!PyArg_ParseTuple(args, "OOL:as_strided", &sizes_obj, &strides_obj, &offset)) return NULL;
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    int n = parse_ints(sizes_obj, sizes, "sizes must be a sequence of ints", false);
    if (n < 0) return NULL;
    int m = parse_ints(strides_obj, strides, "strides must be a sequence of ints", false);
    if (m < 0) return NULL;
    if (m != n) return PyErr_Format(PyExc_ValueError, "%d sizes but %d strides", n, m);
    return wrap_tensor(do_as_strided(self->t, n, sizes, strides, offset));
}

static PyObject *Tensor_clone(TensorObject *self, PyObject *unused)
{
    (void)unused;
    return wrap_tensor(do_clone(self->t));
}

static PyObject *Tensor_repr(TensorObject *self)
{
    PyObject *shape = Tensor_get_shape(self, NULL);
    if (!shape) return NULL;
    PyObject *r = PyUnicode_FromFormat("thdl.Tensor(dtype=%s, shape=%R)", th_dtype_name(th_tensor_dtype(self->t)),
                                       shape);
    Py_DECREF(shape);
    return r;
}

static PyGetSetDef Tensor_getset[] = {
    {"shape", (getter)Tensor_get_shape, NULL, "sizes, a tuple", NULL},
    {"strides", (getter)Tensor_get_strides, NULL, "strides in elements, a tuple", NULL},
    {"dtype", (getter)Tensor_get_dtype, NULL, "the dtype's name suffix, such as 'f32'", NULL},
    {"ndim", (getter)Tensor_get_ndim, NULL, "number of dims", NULL},
    {"numel", (getter)Tensor_get_numel, NULL, "number of elements", NULL},
    {"data_ptr", (getter)Tensor_get_data_ptr, NULL, "address of the first element (0 for none)", NULL},
    {"read_only", (getter)Tensor_get_read_only, NULL, "whether the storage is read-only", NULL},
    {"is_contiguous", (getter)Tensor_get_is_contiguous, NULL, "row-major without gaps", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Tensor_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))Tensor_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None): a DLPack capsule"},
    {"__dlpack_device__", (PyCFunction)Tensor_dlpack_device, METH_NOARGS, "(device_type, device_id)"},
    {"get", (PyCFunction)Tensor_get, METH_O, "get(idx): one element"},
    {"set", (PyCFunction)Tensor_set, METH_VARARGS, "set(idx, value): writes one element"},
    {"tolist", (PyCFunction)Tensor_tolist, METH_NOARGS, "the elements as nested lists"},
    {"transpose", (PyCFunction)Tensor_transpose, METH_VARARGS, "transpose(d0, d1): a view"},
    {"narrow", (PyCFunction)Tensor_narrow, METH_VARARGS, "narrow(dim, start, length): a view"},
    {"select", (PyCFunction)Tensor_select, METH_VARARGS, "select(dim, index): a view without dim"},
    {"as_strided", (PyCFunction)Tensor_as_strided, METH_VARARGS,
     "as_strided(sizes, strides, offset): a view; offset in elements from the storage's start"},
    {"clone", (PyCFunction)Tensor_clone, METH_NOARGS, "a contiguous copy"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TensorType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "thdl.Tensor",
    .tp_basicsize = sizeof(TensorObject),
    .tp_dealloc = (destructor)Tensor_dealloc,
    .tp_repr = (reprfunc)Tensor_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A tensor.h tensor; made by thdl.arange, thdl.from_dlpack and the view methods.",
    .tp_methods = Tensor_methods,
    .tp_getset = Tensor_getset,
};

/* ---- module functions ---- */

static PyObject *thdl_arange(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *dtype_obj, *shape_obj;
    if (!PyArg_ParseTuple(args, "OO:arange", &dtype_obj, &shape_obj)) return NULL;
    th_dtype dtype;
    int64_t sizes[TH_MAX_DIMS];
    if (parse_dtype(dtype_obj, &dtype)) return NULL;
    int ndim = parse_ints(shape_obj, sizes, "shape must be a sequence of ints", false);
    if (ndim < 0) return NULL;
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0 || (sizes[d] > 0 && n > (INT64_C(1) << 40) / sizes[d]))
            return PyErr_Format(PyExc_ValueError, "bad shape %R", shape_obj);
        n *= sizes[d];
    }
    /* The values first, in a wide dtype, then converted into the blob by th_tensor_copy. */
    const th_dtype_traits *info = th_dtype_info(dtype);
    bool complex = info->kind == TH_KIND_COMPLEX;
    th_tensor *values = complex ? th_c128_base(th_c128_empty(ndim, sizes)) : th_i64_base(th_i64_empty(ndim, sizes));
    if (!values) return raise_th();
    for (int64_t k = 0; k < n; k++) {
        if (complex) {
            double parts[2] = {(double)k, (double)-k};
            memcpy((th_complex128 *)th_tensor_data(values) + k, parts, sizeof parts);
        } else {
            ((int64_t *)th_tensor_data(values))[k] = info->kind == TH_KIND_BOOL ? k % 2 : k;
        }
    }
    /* 64-byte aligned, so that consumers such as JAX can take the memory without copying it. */
    size_t nbytes = ((size_t)n * info->size + 63) / 64 * 64;
    void *blob = aligned_alloc(64, nbytes ? nbytes : 64);
    if (!blob) {
        th_tensor_release(values);
        return PyErr_NoMemory();
    }
    atomic_fetch_add(&blobs_alive, 1);
    atomic_fetch_add(&blobs_made, 1);
    /* A zero-size tensor gets NULL data, the case PyTorch 1.13 mishandles; its blob is still made and counted. */
    th_tensor *t = do_from_blob(dtype, n ? blob : NULL, blob, ndim, sizes);
    if (!t) { /* the deleter did not run: the blob is still ours */
        free(blob);
        atomic_fetch_sub(&blobs_alive, 1);
        atomic_fetch_sub(&blobs_made, 1);
        th_tensor_release(values);
        return raise_th();
    }
    int status = th_tensor_copy(t, values);
    th_tensor_release(values);
    if (status != TH_OK) {
        raise_th();
        th_tensor_release(t);
        return NULL;
    }
    return wrap_tensor(t);
}

static PyObject *thdl_blobs_alive(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyLong_FromLong(atomic_load(&blobs_alive));
}

static PyObject *thdl_blob_stats(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return Py_BuildValue("{s:l,s:l,s:l,s:l}", "alive", atomic_load(&blobs_alive), "made", atomic_load(&blobs_made),
                         "freed", atomic_load(&blobs_freed), "mismatches", atomic_load(&blob_mismatches));
}

static PyObject *thdl_read_only(PyObject *module, PyObject *obj)
{
    (void)module;
    th_tensor *t = tensor_of(obj);
    if (!t) return NULL;
    th_storage_make_read_only(th_tensor_storage(t));
    Py_RETURN_NONE;
}

static PyObject *none(void)
{
    Py_INCREF(Py_None);
    return Py_None;
}

static PyObject *dltensor_info(const DLTensor *dl, PyObject *info)
{
    PyObject *shape = dl->shape ? int64_tuple(dl->ndim, dl->shape) : none();
    PyObject *strides = dl->strides ? int64_tuple(dl->ndim, dl->strides) : none();
    int failed = !shape || !strides;
    if (!failed) {
        PyObject *rest = Py_BuildValue("{s:N,s:(ii),s:i,s:(iii),s:O,s:O,s:K}", "data", PyLong_FromVoidPtr(dl->data),
                                       "device", (int)dl->device.device_type, (int)dl->device.device_id, "ndim",
                                       (int)dl->ndim, "dtype", (int)dl->dtype.code, (int)dl->dtype.bits,
                                       (int)dl->dtype.lanes, "shape", shape, "strides", strides, "byte_offset",
                                       (unsigned long long)dl->byte_offset);
        failed = !rest || PyDict_Update(info, rest);
        Py_XDECREF(rest);
    }
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    if (failed) {
        Py_DECREF(info);
        return NULL;
    }
    return info;
}

/* What an unconsumed capsule holds; only {"name": ...} for a consumed one (its memory may be gone). */
static PyObject *thdl_capsule_info(PyObject *module, PyObject *capsule)
{
    (void)module;
    if (!PyCapsule_CheckExact(capsule)) return PyErr_Format(PyExc_TypeError, "not a capsule");
    const char *name = PyCapsule_GetName(capsule);
    if (!name && PyErr_Occurred()) return NULL;
    PyObject *info = Py_BuildValue("{s:s}", "name", name ? name : "");
    if (!info) return NULL;
    if (PyCapsule_IsValid(capsule, CAPSULE_VERSIONED)) {
        struct DLManagedTensorVersioned *m =
            (struct DLManagedTensorVersioned *)PyCapsule_GetPointer(capsule, CAPSULE_VERSIONED);
        PyObject *rest = Py_BuildValue("{s:(II),s:K}", "version", (unsigned)m->version.major,
                                       (unsigned)m->version.minor, "flags", (unsigned long long)m->flags);
        if (!rest || PyDict_Update(info, rest)) {
            Py_XDECREF(rest);
            Py_DECREF(info);
            return NULL;
        }
        Py_DECREF(rest);
        return dltensor_info(&m->dl_tensor, info);
    }
    if (PyCapsule_IsValid(capsule, CAPSULE_LEGACY)) {
        DLManagedTensor *m = (DLManagedTensor *)PyCapsule_GetPointer(capsule, CAPSULE_LEGACY);
        return dltensor_info(&m->dl_tensor, info);
    }
    return info;
}

/* export_raw(t, *, versioned=False, device_type=None, major=None, lanes=None, null_data=False,
 * null_strides=False, byte_offset=0): a capsule over t with fields changed as asked: spoiled, for the import's
 * error paths, or rewritten in ways an importer must read the same (NULL strides for compact tensors, part of
 * the address moved from data into byte_offset). */
static PyObject *thdl_export_raw(PyObject *module, PyObject *args, PyObject *kwargs)
{
    (void)module;
    static char *kwlist[] = {"tensor", "versioned", "device_type", "major", "lanes", "null_data", "null_strides",
                             "byte_offset", NULL};
    PyObject *obj, *device_type = Py_None, *major = Py_None, *lanes = Py_None;
    int versioned = 0, null_data = 0, null_strides = 0;
    unsigned long long byte_offset = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$pOOOppK:export_raw", kwlist, &obj, &versioned,
                                     &device_type, &major, &lanes, &null_data, &null_strides, &byte_offset))
        return NULL;
    th_tensor *t = tensor_of(obj);
    if (!t) return NULL;
    long dev = device_type == Py_None ? -1 : PyLong_AsLong(device_type);
    long maj = major == Py_None ? -1 : PyLong_AsLong(major);
    long lan = lanes == Py_None ? -1 : PyLong_AsLong(lanes);
    if (PyErr_Occurred()) return NULL;
    DLTensor *dl;
    PyObject *capsule;
    if (versioned) {
        struct DLManagedTensorVersioned *m = th_tensor_to_dlpack_versioned(t);
        if (!m) return raise_th();
        if (maj >= 0) m->version.major = (uint32_t)maj;
        dl = &m->dl_tensor;
        capsule = capsule_versioned(m);
    } else {
        DLManagedTensor *m = th_tensor_to_dlpack(t);
        if (!m) return raise_th();
        dl = &m->dl_tensor;
        capsule = capsule_legacy(m);
    }
    if (!capsule) return NULL;
    if (dev >= 0) dl->device.device_type = (DLDeviceType)dev;
    if (lan >= 0) dl->dtype.lanes = (uint16_t)lan;
    if (null_data) dl->data = NULL;
    if (null_strides) dl->strides = NULL;
    if (byte_offset) {
        dl->data = (char *)dl->data - byte_offset;
        dl->byte_offset += byte_offset;
    }
    return capsule;
}

static PyMethodDef thdl_functions[] = {
    {"arange", (PyCFunction)thdl_arange, METH_VARARGS,
     "arange(dtype, shape): a tensor over a counted blob; element k is k (k % 2 for bool, k - k*1j for complex)"},
    {"blobs_alive", (PyCFunction)thdl_blobs_alive, METH_NOARGS, "blobs made by arange and not yet freed"},
    {"blob_stats", (PyCFunction)thdl_blob_stats, METH_NOARGS,
     "{'alive', 'made', 'freed', 'mismatches' (deleter calls with a pointer other than the blob)}"},
    {"read_only", (PyCFunction)thdl_read_only, METH_O, "read_only(t): makes t's storage read-only"},
    {"from_dlpack", (PyCFunction)thdl_from_dlpack, METH_O,
     "from_dlpack(obj): a Tensor over the memory of a DLPack capsule or of an object with __dlpack__"},
    {"capsule_info", (PyCFunction)thdl_capsule_info, METH_O, "capsule_info(capsule): its name and fields"},
    {"export_raw", (PyCFunction)(void (*)(void))thdl_export_raw, METH_VARARGS | METH_KEYWORDS,
     "export_raw(t, *, versioned=False, device_type=None, major=None, lanes=None, null_data=False, "
     "null_strides=False, byte_offset=0)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef thdl_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "thdl",
    .m_doc = "tensor.h tensors for the DLPack interop tests",
    .m_size = -1,
    .m_methods = thdl_functions,
};

PyMODINIT_FUNC PyInit_thdl(void); /* the one exported name */

PyMODINIT_FUNC PyInit_thdl(void)
{
    if (PyType_Ready(&TensorType) < 0) return NULL;
    PyObject *m = PyModule_Create(&thdl_module);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "DLPACK_MAJOR", TH_DLPACK_MAJOR) ||
        PyModule_AddIntConstant(m, "DLPACK_MINOR", TH_DLPACK_MINOR) ||
        PyModule_AddIntConstant(m, "FLAG_READ_ONLY", (long)DLPACK_FLAG_BITMASK_READ_ONLY) ||
        PyModule_AddIntConstant(m, "FLAG_IS_COPIED", (long)DLPACK_FLAG_BITMASK_IS_COPIED)) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&TensorType);
    if (PyModule_AddObject(m, "Tensor", (PyObject *)&TensorType) < 0) {
        Py_DECREF(&TensorType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

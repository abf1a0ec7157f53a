/* h5load.h -- HDF5 and matio, loaded when a .mat or .h5 file is first written
 * (lib/io/h5load.c), called through the table below.
 *
 * Why not linked: the two libraries and what they link in turn (libcurl,
 * GnuTLS, Kerberos, LDAP, ...) are 31 of the 78 shared libraries a jacgraph
 * process would load, and 8.7 ms of the 19 ms of CPU every start spent in the
 * dynamic loader (an empty program linked to the same libraries), while only
 * `batch --out FILE.mat|.h5` and `linearize --format mat` write with them.
 * The library is compiled against their headers; the sonames loaded are the
 * ones a program linked against them would need (found at build time:
 * jg_sonames.h, lib/io/sonames.sh). */
#ifndef JG_IO_H5LOAD_H
#define JG_IO_H5LOAD_H

#include <hdf5.h>
#include <matio.h>
#include "jacgraph/status.h"

/* HDF5's macros for its identifiers and flags call H5open and H5check_version
 * first (H5OPEN, H5CHECK), which would link the library: jg__h5 makes those
 * calls once, when it loads it. */
#undef H5OPEN
#define H5OPEN
#undef H5CHECK
#define H5CHECK

/* The functions called, by their own names (H5Dcreate2, not the macro). */
#define JG__H5_FUNCS(X)                                                                        \
    X(H5open) X(H5check_version) X(H5Fcreate) X(H5Fclose) X(H5Dcreate2) X(H5Dclose) X(H5Dget_space)            \
    X(H5Dset_extent) X(H5Dwrite) X(H5Eget_auto2) X(H5Eset_auto2) X(H5Pcreate) X(H5Pclose) \
    X(H5Pset_chunk) X(H5Pset_fill_value) X(H5Pset_obj_track_times) X(H5Screate_simple)      \
    X(H5Sclose) X(H5Sselect_hyperslab) X(H5Tcopy) X(H5Tclose) X(H5Tset_size) X(H5Tset_cset)
#define JG__MAT_FUNCS(X)                                                                      \
    X(Mat_Close) X(Mat_CreateVer) X(Mat_GetVersion) X(Mat_Open) X(Mat_VarCreate) X(Mat_VarFree) \
    X(Mat_VarSetCell) X(Mat_VarWrite) X(Mat_VarWriteAppend)
/* HDF5's globals behind its identifier macros (H5T_NATIVE_DOUBLE, ...):
 * field, global.  Their values change when the library is closed and opened
 * again (matio does), so, as the macros do, read them through jg__h5_id,
 * which runs H5open first.  (The fields cannot take the macros' names,
 * which would expand.) */
#define JG__H5_IDS(X)                                                                     \
    X(t_c_s1, H5T_C_S1_g) X(t_ieee_f64le, H5T_IEEE_F64LE_g)                               \
    X(t_native_double, H5T_NATIVE_DOUBLE_g) X(t_native_int64, H5T_NATIVE_INT64_g)         \
    X(t_native_uchar, H5T_NATIVE_UCHAR_g) X(t_std_i64le, H5T_STD_I64LE_g)                 \
    X(t_std_u8le, H5T_STD_U8LE_g) X(p_dataset_create, H5P_CLS_DATASET_CREATE_ID_g)

typedef struct {
#define JG__H5_FN(f) __typeof__(f) *f;
#define JG__H5_ID(field, global) const hid_t *field;
    JG__H5_FUNCS(JG__H5_FN)
    JG__MAT_FUNCS(JG__H5_FN)
    JG__H5_IDS(JG__H5_ID)
#undef JG__H5_FN
#undef JG__H5_ID
} jg__h5_t;

/* The identifier behind g (a JG__H5_IDS field), as HDF5's macros read it. */
static inline hid_t jg__h5_id(const jg__h5_t *H, const hid_t *g)
{
    H->H5open();
    return *g;
}

/* The table, the libraries loaded on the first call (any thread; once per
 * process, like the dynamic loader at a program's start, and never
 * unloaded).  NULL when they cannot be loaded: err says which library or
 * function is missing (JG_IO), and every later call says the same. */
const jg__h5_t *jg__h5(jg_error_t *err);

#endif

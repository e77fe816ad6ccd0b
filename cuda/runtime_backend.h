/* cuda/runtime_backend.h: the backend table over the CUDA runtime (cuda/runtime_backend.c). Private to the
 * companion: the only header beside it that CUDA's own headers stand behind. */
#ifndef TH_CUDA_RUNTIME_BACKEND_H
#define TH_CUDA_RUNTIME_BACKEND_H

#include "backend.h"

/* The table; the same object every call. */
const th_cuda_backend *th__cuda_runtime_backend(void);
/* Why no device can be used, as a sentence; NULL when one can. */
const char *th__cuda_runtime_unavailable(void);

#endif

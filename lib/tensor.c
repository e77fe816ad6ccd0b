/* libtensor: the implementation of every dtype, compiled once, for programs that link it (`tensor` in
 * pkg-config, Meson and CMake) instead of compiling a TH_IMPLEMENTATION translation unit of their own.
 * Every dtype is stamped because the library cannot know which ones its users will call. */
#define TH_IMPLEMENTATION
#include "tensor.h"

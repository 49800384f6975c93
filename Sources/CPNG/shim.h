/* CPNG: libpng's simplified write API (png_image_write_to_memory), which reports errors by its return value and
   image.message instead of longjmp, so Swift can call it safely. */
#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
#include <png.h>
#endif

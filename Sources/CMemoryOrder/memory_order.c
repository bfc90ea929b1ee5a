// SwiftPM builds a C target from at least one source file; the one function this target offers is
// `static inline` in its header (include/sdl_memory_order.h), inlined into the Swift that calls it.
#include "sdl_memory_order.h"

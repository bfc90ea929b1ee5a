// One ordered store, in C because Swift has no atomic store to memory it did not allocate as an
// `Atomic` (the intake log's file mapping) before macOS 15 and iOS 18, and this package supports
// macOS 13 and iOS 16.
//
// Why it is needed: the intake log publishes a record by storing its marker last. Without a
// checksum computed on the caller's path, that order is all that tells a whole record from a
// half-written one after a kill, and plain stores may be reordered by the compiler (and, on
// ARM, by the processor). A release store keeps every earlier store before it.
#ifndef SDL_MEMORY_ORDER_H
#define SDL_MEMORY_ORDER_H

#include <stdint.h>

/// Stores `value` at `address` (4-byte aligned) after every store made before it: a release
/// store. A plain `mov` on x86-64, `stlr` on arm64.
static inline void sdl_store_release_u32(void *address, uint32_t value) {
    __atomic_store_n((uint32_t *)address, value, __ATOMIC_RELEASE);
}

#endif

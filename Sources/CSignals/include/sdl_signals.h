// The parts of the SDK that run inside a signal handler, in C: the fatal-signal recorder (crash
// capture) and the termination-signal catcher (graceful shutdown on SIGTERM and SIGINT).
//
// Why C: a signal handler may call only async-signal-safe functions, and Swift does not promise
// that any given line compiles without a runtime call (retain/release, exclusivity checks, lazy
// global initialization). C makes "no allocation, no lock, no runtime" visible line by line, and
// the same POSIX source (sigaction, siginfo_t, sigaltstack, backtrace) compiles on Linux and on
// Apple platforms, so the Linux tests exercise the code Apple apps run. The record's format and
// everything done outside the handler (module map, reading the record) stay in Swift.
#ifndef SDL_FATAL_SIGNALS_H
#define SDL_FATAL_SIGNALS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most return addresses the handler records.
#define SDL_FATAL_SIGNALS_MAX_FRAMES 128

/// Installs the handler for SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE and SIGSEGV, writing to
/// `descriptor` at a crash. Process-wide: the first install wins.
///
/// Copies `module_lines` (the record's `module` lines, formatted by the caller), allocates the
/// buffers, gives the calling thread a 64 KB alternate signal stack (unless it has one of at
/// least that size, or `keep_alternate_stack` is set and it has any), calls `backtrace(3)` once
/// so its lazy loading happens now, then sets the six actions.
/// Returns 1 when installed, 0 when an earlier install holds the recorder, -1 when memory ran out.
int sdl_fatal_signals_install(int descriptor, const char *module_lines, size_t module_lines_length, int keep_alternate_stack);

/// Restores the six actions saved at install, closes the record file and frees the buffers.
/// For tests; must not race a crash on another thread.
void sdl_fatal_signals_uninstall(void);

/// Claims the record for a writer outside the signal handler (the uncaught-exception handler on
/// Apple platforms): returns the record's descriptor when this caller is the first to claim it,
/// else -1 (nothing installed, or another thread is writing or has written). A claimant calls
/// `sdl_fatal_signals_end_record` when done; the signal that follows (abort's SIGABRT) then
/// finds the record written and only chains to the previous action.
int sdl_fatal_signals_begin_record(void);

/// Marks the record claimed by `sdl_fatal_signals_begin_record` as written.
void sdl_fatal_signals_end_record(void);

/// Formats `value` in decimal into `buffer`, dropping what does not fit; returns the bytes
/// written. The handler's own formatter, exposed so tests can compare it with Swift's.
size_t sdl_fatal_signals_format_decimal(char *buffer, size_t capacity, long long value);

/// Formats `value` in lowercase hexadecimal without leading zeros (no `0x`); as above.
size_t sdl_fatal_signals_format_hex(char *buffer, size_t capacity, uintptr_t value);

/// One loaded image on Apple platforms: its `__TEXT` range, LC_UUID and path.
typedef struct {
    uintptr_t start;
    uintptr_t end;
    uint8_t uuid[16];
    const char *path;
} sdl_loaded_image;

/// Fills `images` with up to `capacity` loaded 64-bit Mach-O images (dyld's list) and returns
/// how many it stored. Returns 0 on other platforms, where `/proc/self/maps` serves instead.
size_t sdl_loaded_images(sdl_loaded_image *images, size_t capacity);

/// Installs a handler for SIGTERM and SIGINT that writes the signal's number (an `int`) to
/// `descriptor`, the write end of a pipe the caller reads on a thread of its own: the self-pipe
/// pattern (write(2) is async-signal-safe; everything else happens on the reader's thread).
/// Process-wide and once: returns 1 when installed, 0 when a catcher is already installed.
int sdl_termination_signals_install(int descriptor);

/// Restores the actions SIGTERM and SIGINT had before the install and forgets the descriptor
/// (the caller closes it). Does nothing when no catcher is installed.
void sdl_termination_signals_uninstall(void);

#ifdef __cplusplus
}
#endif

#endif

// The fatal-signal handler and its state. See include/sdl_signals.h for why this is C.
//
// Everything the handler touches is allocated and filled at install. Shared words are read and
// written only with the compiler's __atomic builtins: the state block is published with a
// release store after it is complete and read with an acquire load in the handler.
#if defined(__linux__)
#define _GNU_SOURCE  // REG_RIP in <sys/ucontext.h>
#endif

#include "sdl_signals.h"

#if defined(__linux__) || defined(__APPLE__)

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ucontext.h>
#include <time.h>
#include <unistd.h>
#if __has_include(<execinfo.h>)
#include <execinfo.h>
#define SDL_HAS_BACKTRACE 1
#else
#define SDL_HAS_BACKTRACE 0  // musl: the record names the signal, with no frames
#endif
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#include <mach-o/loader.h>
#endif

enum {
    signal_count = 6,
    alternate_stack_size = 65536,
    // The header and 128 frame lines of at most 25 bytes fit.
    buffer_capacity = 8192,
};

// The signals' numbers differ between platforms (SIGBUS is 7 on Linux, 10 on Apple platforms):
// always the platform's constants, never literals.
static const int fatal_signals[signal_count] = { SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV };

struct recorder_state {
    int descriptor;
    char buffer[buffer_capacity];
    void *frames[SDL_FATAL_SIGNALS_MAX_FRAMES];
    // The actions the six signals had before ours, in `fatal_signals` order.
    struct sigaction previous[signal_count];
    size_t module_lines_length;
    char module_lines[];
};

// The installed state, NULL when none.
static struct recorder_state *installed;
// Whether an install holds the recorder (the first install wins, process-wide).
static int claimed;
// Who writes the record: 0 nobody yet, 1 a thread is writing it, 2 it is written.
static int phase;
// The alternate signal stack, allocated once and never freed: a thread keeps pointing at it.
static void *alternate_stack;

// MARK: Formatting without allocation

struct writer {
    char *base;
    size_t capacity;
    size_t count;
};

static void append_byte(struct writer *writer, char byte) {
    if (writer->count < writer->capacity) writer->base[writer->count++] = byte;
}

static void append(struct writer *writer, const char *text) {
    while (*text) append_byte(writer, *text++);
}

static void append_decimal(struct writer *writer, long long value) {
    // The magnitude as unsigned, so LLONG_MIN does not overflow; digits from the highest power
    // of ten down, so no scratch buffer is needed.
    unsigned long long magnitude = value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
    if (value < 0) append_byte(writer, '-');
    unsigned long long divisor = 1;
    while (magnitude / divisor >= 10) divisor *= 10;
    for (; divisor > 0; divisor /= 10) append_byte(writer, (char)('0' + (magnitude / divisor) % 10));
}

static void append_hex(struct writer *writer, uintptr_t value) {
    int started = 0;
    for (int shift = (int)(sizeof(uintptr_t) * 8) - 4; shift >= 0; shift -= 4) {
        unsigned nibble = (unsigned)((value >> shift) & 0xF);
        if (nibble != 0 || started || shift == 0) {
            started = 1;
            append_byte(writer, (char)(nibble < 10 ? '0' + nibble : 'a' + nibble - 10));
        }
    }
}

size_t sdl_fatal_signals_format_decimal(char *buffer, size_t capacity, long long value) {
    struct writer writer = { buffer, capacity, 0 };
    append_decimal(&writer, value);
    return writer.count;
}

size_t sdl_fatal_signals_format_hex(char *buffer, size_t capacity, uintptr_t value) {
    struct writer writer = { buffer, capacity, 0 };
    append_hex(&writer, value);
    return writer.count;
}

static const char *signal_name(int signal) {
    switch (signal) {
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGSEGV: return "SIGSEGV";
    default: return "UNKNOWN";
    }
}

// MARK: The record

// `write(2)` until everything is written, retrying on EINTR; gives up on any other error.
static void write_all(int descriptor, const char *bytes, size_t count) {
    size_t written = 0;
    while (written < count) {
        ssize_t result = write(descriptor, bytes + written, count - written);
        if (result > 0) {
            written += (size_t)result;
        } else if (result < 0 && errno == EINTR) {
            continue;
        } else {
            return;
        }
    }
}

// The interrupted instruction's address from the signal's context, 0 where unknown.
static uintptr_t program_counter(void *context) {
    if (context == NULL) return 0;
    ucontext_t *user_context = context;
#if defined(__linux__) && defined(__x86_64__)
    return (uintptr_t)user_context->uc_mcontext.gregs[REG_RIP];
#elif defined(__linux__) && defined(__aarch64__)
    return (uintptr_t)user_context->uc_mcontext.pc;
#elif defined(__APPLE__) && defined(__x86_64__)
    return (uintptr_t)user_context->uc_mcontext->__ss.__rip;
#elif defined(__APPLE__) && defined(__arm64__)
    // The accessor strips pointer authentication where the platform uses it.
    return (uintptr_t)__darwin_arm_thread_state64_get_pc(user_context->uc_mcontext->__ss);
#else
    (void)user_context;
    return 0;
#endif
}

// Whether si_addr names a faulting address: a fault the kernel raised. Linux gives those positive
// codes and signals sent by a process zero or negative ones (abort's SI_TKILL is -6, and the
// same bytes then hold the sender's pid); Apple platforms give faults small positive codes and
// sent signals codes from 0x10001 (SI_USER) up.
static int names_fault_address(int code) {
    return code > 0 && code < 0x10000;
}

// Formats and writes the record, in three writes: the header and frames, the module lines, then
// `end`. With `dry_run` (at install) it formats and calls `backtrace` without writing, so every
// path and lazy binding it uses has run once before a real crash.
static void write_record(struct recorder_state *state, int signal, siginfo_t *info, void *context, int dry_run) {
    struct writer writer = { state->buffer, buffer_capacity, 0 };
    append(&writer, "SDLCRASH 1\nsignal ");
    append_decimal(&writer, signal);
    append(&writer, " ");
    append(&writer, signal_name(signal));
    append(&writer, "\n");
    if (info != NULL) {
        append(&writer, "code ");
        append_decimal(&writer, info->si_code);
        append(&writer, "\n");
        if (names_fault_address(info->si_code)) {
            append(&writer, "address 0x");
            append_hex(&writer, (uintptr_t)info->si_addr);
            append(&writer, "\n");
        }
    }
    uintptr_t pc = program_counter(context);
    if (pc != 0) {
        append(&writer, "pc 0x");
        append_hex(&writer, pc);
        append(&writer, "\n");
    }
    // The header goes out before backtrace runs: if the walk itself faults or hangs (a crash
    // inside the dynamic loader), the record still names the signal.
    if (!dry_run) write_all(state->descriptor, writer.base, writer.count);

    writer.count = 0;
#if SDL_HAS_BACKTRACE
    int count = backtrace(state->frames, SDL_FATAL_SIGNALS_MAX_FRAMES);
    for (int index = 0; index < count; index++) {
        append(&writer, "frame 0x");
        append_hex(&writer, (uintptr_t)state->frames[index]);
        append(&writer, "\n");
    }
#endif
    if (dry_run) return;
    write_all(state->descriptor, writer.base, writer.count);
    write_all(state->descriptor, state->module_lines, state->module_lines_length);
    write_all(state->descriptor, "end\n", 4);
}

// MARK: The handler

// Another thread crashed first and is writing the record: give it up to half a second before
// this thread's signal ends the process.
static void wait_for_other_writer(void) {
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (__atomic_load_n(&phase, __ATOMIC_ACQUIRE) == 1) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long elapsed = (long long)(now.tv_sec - start.tv_sec) * 1000000000LL + (now.tv_nsec - start.tv_nsec);
        if (elapsed > 500000000LL) return;
        sched_yield();
    }
}

static void reraise_with_default(int signal) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigaction(signal, &action, NULL);
    raise(signal);
}

// Runs inside the signal handler: only async-signal-safe calls (write, sigaction, raise,
// clock_gettime, sched_yield) and backtrace, warmed up at install. backtrace(3) can still
// deadlock if the crash happened inside the dynamic loader while it held its lock; the header is
// written before it is called.
static void handle_fatal_signal(int signal, siginfo_t *info, void *context) {
    struct recorder_state *state = __atomic_load_n(&installed, __ATOMIC_ACQUIRE);
    if (state == NULL) {
        reraise_with_default(signal);
        return;
    }
    int expected = 0;
    if (__atomic_compare_exchange_n(&phase, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        write_record(state, signal, info, context, 0);
        __atomic_store_n(&phase, 2, __ATOMIC_RELEASE);
    } else {
        wait_for_other_writer();
    }
    // Chain: restore the action we replaced (the Swift runtime's backtracer by default, or
    // SIG_DFL) and raise again. The signal is blocked until this handler returns, so the
    // previous action runs right after, on the same thread, with the crashed context.
    for (int index = 0; index < signal_count; index++) {
        if (fatal_signals[index] == signal) sigaction(signal, &state->previous[index], NULL);
    }
    raise(signal);
}

// MARK: Installing

// Gives the calling thread the process's 64 KB alternate signal stack, so a stack overflow can
// be recorded, unless it already has one at least that large (the Swift runtime gives the main
// thread a smaller one on Linux) or `keep_existing` asks to keep any (AddressSanitizer gives
// every thread a stack of its own and aborts when it cannot unmap it at thread exit).
static void use_alternate_stack(int keep_existing) {
    stack_t current;
    if (sigaltstack(NULL, &current) != 0) return;
    if (!(current.ss_flags & SS_DISABLE)) {
        if (current.ss_size >= alternate_stack_size || keep_existing) return;
    }
    void *stack = __atomic_load_n(&alternate_stack, __ATOMIC_ACQUIRE);
    if (stack == NULL) {
        void *fresh = malloc(alternate_stack_size);
        if (fresh == NULL) return;
        void *expected = NULL;
        if (__atomic_compare_exchange_n(&alternate_stack, &expected, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            stack = fresh;
        } else {
            free(fresh);
            stack = expected;
        }
    }
    // Designated members: stack_t's members come in another order on Apple platforms.
    stack_t replacement = { .ss_sp = stack, .ss_size = alternate_stack_size, .ss_flags = 0 };
    sigaltstack(&replacement, NULL);
}

int sdl_fatal_signals_install(int descriptor, const char *module_lines, size_t module_lines_length, int keep_alternate_stack) {
    int expected = 0;
    if (!__atomic_compare_exchange_n(&claimed, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return 0;
    struct recorder_state *state = calloc(1, sizeof(struct recorder_state) + module_lines_length + 1);
    if (state == NULL) {
        __atomic_store_n(&claimed, 0, __ATOMIC_RELEASE);
        return -1;
    }
    state->descriptor = descriptor;
    if (module_lines_length > 0) memcpy(state->module_lines, module_lines, module_lines_length);
    state->module_lines_length = module_lines_length;

    use_alternate_stack(keep_alternate_stack);
    __atomic_store_n(&phase, 0, __ATOMIC_RELEASE);
    write_record(state, 0, NULL, NULL, 1);
    __atomic_store_n(&installed, state, __ATOMIC_RELEASE);

    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = handle_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    // The six signals are blocked while the handler runs: a fault inside it ends the process
    // (the kernel forces the default action) instead of entering it again.
    sigemptyset(&action.sa_mask);
    for (int index = 0; index < signal_count; index++) sigaddset(&action.sa_mask, fatal_signals[index]);
    for (int index = 0; index < signal_count; index++) sigaction(fatal_signals[index], &action, &state->previous[index]);
    return 1;
}

void sdl_fatal_signals_uninstall(void) {
    struct recorder_state *state = __atomic_load_n(&installed, __ATOMIC_ACQUIRE);
    if (state == NULL) return;
    for (int index = 0; index < signal_count; index++) sigaction(fatal_signals[index], &state->previous[index], NULL);
    __atomic_store_n(&installed, NULL, __ATOMIC_RELEASE);
    close(state->descriptor);
    free(state);
    __atomic_store_n(&claimed, 0, __ATOMIC_RELEASE);
}

int sdl_fatal_signals_begin_record(void) {
    struct recorder_state *state = __atomic_load_n(&installed, __ATOMIC_ACQUIRE);
    if (state == NULL) return -1;
    int expected = 0;
    if (!__atomic_compare_exchange_n(&phase, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return -1;
    return state->descriptor;
}

void sdl_fatal_signals_end_record(void) {
    __atomic_store_n(&phase, 2, __ATOMIC_RELEASE);
}

// MARK: Loaded images

#if defined(__APPLE__)
size_t sdl_loaded_images(sdl_loaded_image *images, size_t capacity) {
    uint32_t count = _dyld_image_count();
    size_t stored = 0;
    for (uint32_t index = 0; index < count && stored < capacity; index++) {
        const struct mach_header *header = _dyld_get_image_header(index);
        const char *path = _dyld_get_image_name(index);
        if (header == NULL || path == NULL || header->magic != MH_MAGIC_64) continue;
        intptr_t slide = _dyld_get_image_vmaddr_slide(index);
        sdl_loaded_image image;
        memset(&image, 0, sizeof image);
        image.path = path;
        const uint8_t *command = (const uint8_t *)header + sizeof(struct mach_header_64);
        for (uint32_t number = 0; number < header->ncmds; number++) {
            const struct load_command *load = (const struct load_command *)command;
            if (load->cmd == LC_SEGMENT_64) {
                const struct segment_command_64 *segment = (const struct segment_command_64 *)command;
                if (strncmp(segment->segname, "__TEXT", sizeof segment->segname) == 0) {
                    image.start = (uintptr_t)(segment->vmaddr + (uint64_t)slide);
                    image.end = image.start + (uintptr_t)segment->vmsize;
                }
            } else if (load->cmd == LC_UUID) {
                memcpy(image.uuid, ((const struct uuid_command *)command)->uuid, sizeof image.uuid);
            }
            command += load->cmdsize;
        }
        if (image.end > image.start) images[stored++] = image;
    }
    return stored;
}
#else
size_t sdl_loaded_images(sdl_loaded_image *images, size_t capacity) {
    (void)images;
    (void)capacity;
    return 0;
}
#endif

#endif

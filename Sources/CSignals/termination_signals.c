// The termination-signal catcher: SIGTERM and SIGINT become a number written to a pipe. See
// include/sdl_signals.h.
#include "sdl_signals.h"

#if defined(__linux__) || defined(__APPLE__)

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

enum { termination_count = 2 };
static const int termination_signals[termination_count] = { SIGTERM, SIGINT };

// The pipe's write end, -1 when no catcher is installed. Read and written with __atomic only.
static int write_end = -1;
// The actions the two signals had before the install, in `termination_signals` order.
static struct sigaction previous[termination_count];

// Runs inside the signal handler: one write(2), and errno left as the interrupted code had it.
static void handle_termination(int signal) {
    int saved = errno;
    int descriptor = __atomic_load_n(&write_end, __ATOMIC_ACQUIRE);
    if (descriptor >= 0) {
        ssize_t result;
        do {
            result = write(descriptor, &signal, sizeof signal);
        } while (result < 0 && errno == EINTR);
    }
    errno = saved;
}

int sdl_termination_signals_install(int descriptor) {
    int expected = -1;
    if (!__atomic_compare_exchange_n(&write_end, &expected, descriptor, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handle_termination;
    sigemptyset(&action.sa_mask);
    // Interrupted system calls resume: the signal only asks for a shutdown, it must not make
    // some unrelated read fail with EINTR.
    action.sa_flags = SA_RESTART;
    for (int index = 0; index < termination_count; index++) sigaction(termination_signals[index], &action, &previous[index]);
    return 1;
}

void sdl_termination_signals_uninstall(void) {
    if (__atomic_load_n(&write_end, __ATOMIC_ACQUIRE) < 0) return;
    for (int index = 0; index < termination_count; index++) sigaction(termination_signals[index], &previous[index], NULL);
    __atomic_store_n(&write_end, -1, __ATOMIC_RELEASE);
}

#endif

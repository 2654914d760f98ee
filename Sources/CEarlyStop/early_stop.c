#include "kamera_early_stop.h"

#include <signal.h>
#include <stddef.h>

static volatile sig_atomic_t early = 0;

static void record(int number) {
    if (early != 0) {
        // A second signal before main: end at once, as main's handler would.
        signal(number, SIG_DFL);
        raise(number);
        return;
    }
    early = number;
}

static void catchEarly(int argc, char **argv, char **environment) {
    (void)argc;
    (void)argv;
    (void)environment;
    const int numbers[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF};
    struct sigaction action = {0};
    action.sa_handler = record;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) sigaction(numbers[i], &action, NULL);
}

__attribute__((section(".preinit_array"), used)) static void (*const catchEarlyEntry)(int, char **, char **) = catchEarly;

int kamera_early_signal(void) { return early; }

// A stop asked before `main` runs. A program started with SIGINT ignored (a
// script's `cmd &`) would lose a Ctrl-C or `kill -INT` that comes while its
// libraries' constructors run, before main installs its handlers: here the
// stop signals are caught from the executable's .preinit_array, which runs
// after the dynamic loader and before any library's constructor. A signal
// that comes while the loader itself maps and relocates the libraries is
// still lost when it is ignored: no code of the program runs yet.
#pragma once

/// The first stop signal that came before main's handlers, or 0.
int kamera_early_signal(void);

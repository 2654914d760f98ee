#pragma once
#include <alsa/asoundlib.h>

// The timestamp of the last period update as nanoseconds of CLOCK_MONOTONIC
// (with the tstamp type set so), and the frames available then; 0 or -errno.
static inline int kamera_pcm_htimestamp(snd_pcm_t *pcm, unsigned long *avail, unsigned long long *nanoseconds) {
    snd_pcm_uframes_t frames = 0;
    snd_htimestamp_t stamp;
    int status = snd_pcm_htimestamp(pcm, &frames, &stamp);
    if (status < 0) return status;
    *avail = frames;
    *nanoseconds = (unsigned long long)stamp.tv_sec * 1000000000ull + (unsigned long long)stamp.tv_nsec;
    return 0;
}

// ALSA prints some errors to stderr itself; Kamera reports them in one line instead.
static void kamera_alsa_silent(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void kamera_alsa_quiet(void) { snd_lib_error_set_handler(kamera_alsa_silent); }

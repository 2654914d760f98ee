// loopback-feed DEVICE FOURCC WIDTH HEIGHT FPS FILE...
// Writes the FILEs, each one compressed frame, to a v4l2loopback output node
// in turn, again and again, at FPS frames a second until killed: a camera
// that streams a format ffmpeg cannot write (FWHT, for the V4L2 decoder tests).
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAMES 16
#define MAX_BYTES (16 << 20)

int main(int argc, char **argv) {
    if (argc < 7 || argc - 6 > MAX_FRAMES || strlen(argv[2]) != 4) {
        fprintf(stderr, "usage: loopback-feed DEVICE FOURCC WIDTH HEIGHT FPS FILE... (at most %d files)\n", MAX_FRAMES);
        return 2;
    }
    int width = atoi(argv[3]), height = atoi(argv[4]), fps = atoi(argv[5]);
    if (width < 1 || height < 1 || fps < 1 || fps > 1000) {
        fprintf(stderr, "loopback-feed: WIDTH and HEIGHT must be positive and FPS from 1 to 1000\n");
        return 2;
    }
    int count = argc - 6;
    static unsigned char frames[MAX_FRAMES][MAX_BYTES];
    size_t sizes[MAX_FRAMES], largest = 0;
    for (int i = 0; i < count; i++) {
        FILE *in = fopen(argv[6 + i], "rb");
        if (!in) { perror(argv[6 + i]); return 1; }
        sizes[i] = fread(frames[i], 1, MAX_BYTES, in);
        int more = fgetc(in) != EOF;
        fclose(in);
        if (sizes[i] == 0 || more) { fprintf(stderr, "%s: empty, or over %d bytes\n", argv[6 + i], MAX_BYTES); return 1; }
        if (sizes[i] > largest) largest = sizes[i];
    }
    int fd = open(argv[1], O_RDWR);
    if (fd < 0) { perror(argv[1]); return 1; }
    __u32 code = v4l2_fourcc(argv[2][0], argv[2][1], argv[2][2], argv[2][3]);
    struct v4l2_format format;
    memset(&format, 0, sizeof format);
    format.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    format.fmt.pix.width = width;
    format.fmt.pix.height = height;
    format.fmt.pix.pixelformat = code;
    format.fmt.pix.field = V4L2_FIELD_NONE;
    format.fmt.pix.sizeimage = largest;
    if (ioctl(fd, VIDIOC_S_FMT, &format) < 0) { perror("VIDIOC_S_FMT"); return 1; }
    if (format.fmt.pix.pixelformat != code) { fprintf(stderr, "%s does not take %s\n", argv[1], argv[2]); return 1; }
    struct timespec period = { 1 / fps, (1000000000L / fps) % 1000000000L };
    for (unsigned long n = 0;; n++) {
        int i = n % count;
        if (write(fd, frames[i], sizes[i]) != (ssize_t)sizes[i]) { perror("write"); return 1; }
        nanosleep(&period, NULL);
    }
}

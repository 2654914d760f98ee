// loopback-feed DEVICE FILE FOURCC WIDTH HEIGHT FPS
// Writes FILE, one compressed frame, to a v4l2loopback output node again and
// again at FPS frames a second until killed: a camera that streams a format
// ffmpeg cannot write (FWHT, for the V4L2 decoder tests).
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 7 || strlen(argv[3]) != 4) {
        fprintf(stderr, "usage: loopback-feed DEVICE FILE FOURCC WIDTH HEIGHT FPS\n");
        return 2;
    }
    FILE *in = fopen(argv[2], "rb");
    if (!in) { perror(argv[2]); return 1; }
    static unsigned char frame[16 << 20];
    size_t size = fread(frame, 1, sizeof frame, in);
    fclose(in);
    if (size == 0) { fprintf(stderr, "%s: empty\n", argv[2]); return 1; }
    int fd = open(argv[1], O_RDWR);
    if (fd < 0) { perror(argv[1]); return 1; }
    struct v4l2_format format;
    memset(&format, 0, sizeof format);
    format.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    format.fmt.pix.width = atoi(argv[4]);
    format.fmt.pix.height = atoi(argv[5]);
    format.fmt.pix.pixelformat = v4l2_fourcc(argv[3][0], argv[3][1], argv[3][2], argv[3][3]);
    format.fmt.pix.field = V4L2_FIELD_NONE;
    format.fmt.pix.sizeimage = size;
    if (ioctl(fd, VIDIOC_S_FMT, &format) < 0) { perror("VIDIOC_S_FMT"); return 1; }
    if (format.fmt.pix.pixelformat != v4l2_fourcc(argv[3][0], argv[3][1], argv[3][2], argv[3][3])) {
        fprintf(stderr, "%s does not take %s\n", argv[1], argv[3]);
        return 1;
    }
    struct timespec period = { 0, 1000000000L / atoi(argv[6]) };
    for (;;) {
        if (write(fd, frame, size) != (ssize_t)size) { perror("write"); return 1; }
        nanosleep(&period, NULL);
    }
}

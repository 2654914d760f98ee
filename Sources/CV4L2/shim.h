#pragma once
#include <errno.h>
#include <sys/ioctl.h>
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <libv4lconvert.h>

// ioctl is variadic and the VIDIOC_* request numbers are function-like macros;
// Swift imports neither, so they are spelled out here.
static inline int kamera_ioctl(int fd, unsigned long request, void *argument) {
    int result;
    do { result = ioctl(fd, request, argument); } while (result == -1 && errno == EINTR);
    return result;
}

static const unsigned long KAMERA_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long KAMERA_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long KAMERA_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long KAMERA_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long KAMERA_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long KAMERA_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long KAMERA_VIDIOC_TRY_FMT = VIDIOC_TRY_FMT;
static const unsigned long KAMERA_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long KAMERA_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long KAMERA_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long KAMERA_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long KAMERA_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long KAMERA_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long KAMERA_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long KAMERA_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
static const unsigned long KAMERA_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
static const unsigned long KAMERA_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
static const unsigned long KAMERA_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
static const unsigned long KAMERA_VIDIOC_S_CTRL = VIDIOC_S_CTRL;
static const unsigned long KAMERA_VIDIOC_G_EXT_CTRLS = VIDIOC_G_EXT_CTRLS;
static const unsigned long KAMERA_VIDIOC_S_EXT_CTRLS = VIDIOC_S_EXT_CTRLS;
static const unsigned long KAMERA_VIDIOC_EXPBUF = VIDIOC_EXPBUF;
static const unsigned int KAMERA_CTRL_FLAG_NEXT = V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;

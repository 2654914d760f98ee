#pragma once
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <linux/videodev2.h>
#include <linux/media.h>
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
static const unsigned long KAMERA_VIDIOC_SUBSCRIBE_EVENT = VIDIOC_SUBSCRIBE_EVENT;
static const unsigned long KAMERA_VIDIOC_DQEVENT = VIDIOC_DQEVENT;
static const unsigned int KAMERA_CTRL_FLAG_NEXT = V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;

// The media controller: what a camera's graph holds (its sensor, for the black level).
static const unsigned long KAMERA_MEDIA_IOC_DEVICE_INFO = MEDIA_IOC_DEVICE_INFO;
static const unsigned long KAMERA_MEDIA_IOC_G_TOPOLOGY = MEDIA_IOC_G_TOPOLOGY;
static const unsigned int KAMERA_MEDIA_ENT_F_CAM_SENSOR = MEDIA_ENT_F_CAM_SENSOR;
static const unsigned int KAMERA_MEDIA_INTF_T_V4L_VIDEO = MEDIA_INTF_T_V4L_VIDEO;
static const unsigned int KAMERA_MEDIA_LNK_FL_ENABLED = MEDIA_LNK_FL_ENABLED;
static const unsigned int KAMERA_MEDIA_LNK_FL_LINK_TYPE = MEDIA_LNK_FL_LINK_TYPE;
static const unsigned int KAMERA_MEDIA_LNK_FL_DATA_LINK = MEDIA_LNK_FL_DATA_LINK;
static const unsigned int KAMERA_MEDIA_LNK_FL_INTERFACE_LINK = MEDIA_LNK_FL_INTERFACE_LINK;
static inline unsigned long long kamera_makedev(unsigned int major, unsigned int minor) { return makedev(major, minor); }

// The process zxing-cpp runs in for Kamera's code reader (see
// Sources/CZXing/kamera_zxing.cpp): a small program of its own, linked with
// zxing-cpp alone, so that starting it costs milliseconds where starting
// Kamera's whole executable again costs tens of them.
#include "kamera_zxing.h"

int main(int argc, char **argv) { return kamera_zxing_helper_main(argc, argv); }

// zlib ships with every Swift toolchain's Linux dependencies and with Apple's SDKs, so the SDK
// gets gzip and CRC-32 without a package dependency.
#include <zlib.h>

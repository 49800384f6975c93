/* CQRencode: libqrencode, for `packtool grant issue --qr`. Its API imports into Swift as is. */
#ifndef CQRENCODE_SHIM_H
#define CQRENCODE_SHIM_H
#include <qrencode.h>
#endif

#ifndef TIDINGS_CQRENCODE_SHIM_H
#define TIDINGS_CQRENCODE_SHIM_H

// libqrencode: QR codes for the console's TOTP enrolment (otpauth:// URIs).
#include <qrencode.h>

#endif

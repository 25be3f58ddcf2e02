#ifndef HEARTH_CCRYPT_SHIM_H
#define HEARTH_CCRYPT_SHIM_H
/* libxcrypt: crypt_rn, the reentrant crypt(3), for checking bcrypt hashes imported from other systems. */
#include <crypt.h>
#endif

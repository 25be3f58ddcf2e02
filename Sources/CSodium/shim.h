#ifndef HEARTH_CSODIUM_SHIM_H
#define HEARTH_CSODIUM_SHIM_H
#include <sodium.h>
#endif

#ifndef HEARTH_CRC32C_H
#define HEARTH_CRC32C_H
#include <stddef.h>
#include <stdint.h>

/// Continues a CRC-32C (Castagnoli) over `length` bytes: pass 0 to start, the previous result to continue.
/// Uses the CPU's CRC32 instruction (SSE 4.2) where there is one, else an eight-way table.
uint32_t hearth_crc32c_update(uint32_t crc, const void *bytes, size_t length);

#endif

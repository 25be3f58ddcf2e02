// CRC-32C for stored files. Written in C, not Swift, because uploads run it over every byte and a debug build of
// the Swift loop managed ~30 MB/s; here it runs at memory speed in any build.
#include "hearth_crc32c.h"

#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

static uint32_t table[8][256];
static int table_ready = 0;

static void build_table(void) {
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t crc = byte;
        for (int bit = 0; bit < 8; bit++) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        table[0][byte] = crc;
    }
    for (uint32_t byte = 0; byte < 256; byte++) {
        for (int slice = 1; slice < 8; slice++) {
            uint32_t previous = table[slice - 1][byte];
            table[slice][byte] = table[0][previous & 0xFF] ^ (previous >> 8);
        }
    }
    table_ready = 1;
}

static uint32_t software(uint32_t crc, const unsigned char *p, size_t length) {
    if (!table_ready) build_table();
    while (length >= 8) {
        uint32_t low, high;
        memcpy(&low, p, 4);
        memcpy(&high, p + 4, 4);
        low ^= crc;
        crc = table[7][low & 0xFF] ^ table[6][(low >> 8) & 0xFF] ^ table[5][(low >> 16) & 0xFF] ^
              table[4][low >> 24] ^ table[3][high & 0xFF] ^ table[2][(high >> 8) & 0xFF] ^
              table[1][(high >> 16) & 0xFF] ^ table[0][high >> 24];
        p += 8;
        length -= 8;
    }
    while (length--) crc = table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t hardware(uint32_t crc, const unsigned char *p, size_t length) {
    uint64_t wide = crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        wide = _mm_crc32_u64(wide, word);
        p += 8;
        length -= 8;
    }
    uint32_t narrow = (uint32_t)wide;
    while (length--) narrow = _mm_crc32_u8(narrow, *p++);
    return narrow;
}
#endif

uint32_t hearth_crc32c_update(uint32_t crc, const void *bytes, size_t length) {
    uint32_t state = ~crc;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sse4.2")) return ~hardware(state, bytes, length);
#endif
    return ~software(state, bytes, length);
}

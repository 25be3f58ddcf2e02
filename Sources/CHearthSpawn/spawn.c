#define _GNU_SOURCE
#include "hearth_spawn.h"
#include <errno.h>

int hearth_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
#else
    (void)actions;
    (void)from;
    return ENOSYS; /* the caller cannot spawn without leaking descriptors */
#endif
}

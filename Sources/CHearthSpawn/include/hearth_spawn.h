#ifndef HEARTH_SPAWN_H
#define HEARTH_SPAWN_H
#include <spawn.h>

/// Adds a file action closing every descriptor from `from` up in the child (glibc's
/// posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module leaves out: it needs _GNU_SOURCE).
/// Returns 0 or an errno value.
int hearth_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from);

#endif

#ifndef HEARTH_CSQLITE_SHIM_H
#define HEARTH_CSQLITE_SHIM_H
#include <sqlite3.h>
#include "batched_wal.h"
#include "page_cache.h"

/// SQLITE_TRANSIENT is a macro over a cast function pointer, which Swift cannot import.
static inline sqlite3_destructor_type hearth_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's memory statistics, which take one global
/// mutex around every allocation of every connection; Hearth never reads them. Effective only before SQLite
/// initializes (the first open); later it returns SQLITE_MISUSE and changes nothing.
static inline int hearth_sqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

#endif

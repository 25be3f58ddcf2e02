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

/// Flushes the main database file of `db` to disk through SQLite's own handle (xSync), so no second descriptor is ever
/// opened and closed on the file (closing one would drop the process's POSIX locks on it).
static inline int hearth_sqlite_sync_main_file(sqlite3 *db) {
    sqlite3_file *file = 0;
    int rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file);
    if (rc != SQLITE_OK) return rc;
    if (!file || !file->pMethods) return SQLITE_MISUSE;
    return file->pMethods->xSync(file, SQLITE_SYNC_NORMAL);
}

#endif

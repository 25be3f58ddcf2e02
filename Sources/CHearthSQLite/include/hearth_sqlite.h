#ifndef HEARTH_SQLITE_H
#define HEARTH_SQLITE_H
#include <sqlite3.h>

// What HearthSQLite needs from C beside SQLite's own API: helpers for what Swift cannot call (a macro, a variadic
// function), and the two replacements Hearth installs — the batched write-ahead-log VFS (batched_wal.c) and the
// page cache that parks split pages out of the way (page_cache.c). Declarations only; the code is in the .c files.

/// SQLITE_TRANSIENT, a macro over a cast function pointer, which Swift cannot import.
sqlite3_destructor_type hearth_sqlite_transient(void);

/// Turns off SQLite's memory statistics (one global mutex around every allocation of every connection; Hearth never
/// reads them). Effective only before SQLite initializes (the first open); later it returns SQLITE_MISUSE.
int hearth_sqlite_disable_memory_statistics(void);

/// Flushes the main database file of `db` through SQLite's own handle (xSync), so no second descriptor is ever opened
/// and closed on the file (closing one would drop the process's POSIX locks on it).
int hearth_sqlite_sync_main_file(sqlite3 *db);

/// The name the batched write-ahead-log VFS is registered under.
const char *hearth_batched_wal_vfs_name(void);

/// Registers the batched write-ahead-log VFS (not as the default); SQLITE_OK when it is available.
int hearth_sqlite_register_batched_wal(void);

/// Installs the page cache for every connection the process opens. Effective only before SQLite initializes (the first
/// open); later it returns SQLITE_MISUSE and SQLite keeps its default cache, which is correct, only slower.
int hearth_sqlite_install_page_cache(void);

/// Page renumberings parked under the locking page number since the process started (tests read it).
unsigned long long hearth_sqlite_parked_page_count(void);

#endif

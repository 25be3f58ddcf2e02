#include "hearth_sqlite.h"

// See hearth_sqlite.h for what each is for.

sqlite3_destructor_type hearth_sqlite_transient(void) { return SQLITE_TRANSIENT; }

int hearth_sqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

int hearth_sqlite_sync_main_file(sqlite3 *db) {
    sqlite3_file *file = 0;
    int rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file);
    if (rc != SQLITE_OK) return rc;
    if (!file || !file->pMethods) return SQLITE_MISUSE;
    return file->pMethods->xSync(file, SQLITE_SYNC_NORMAL);
}

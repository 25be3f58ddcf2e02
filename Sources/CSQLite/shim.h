#ifndef HEARTH_CSQLITE_SHIM_H
#define HEARTH_CSQLITE_SHIM_H
// SQLite's API as the system library installs it. Hearth's own C beside it is the CHearthSQLite target.
#include <sqlite3.h>
#endif

#ifndef TIDINGS_CSQLITE_SHIM_H
#define TIDINGS_CSQLITE_SHIM_H

#include <sqlite3.h>

// sqlite3_config is variadic, which Swift cannot call. Memory statistics cost every allocation a global mutex
// (a few percent of event ingest); nothing reads them. Only effective before SQLite initializes.
static inline int tidings_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif

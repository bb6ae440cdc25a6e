#ifndef TIDINGS_CSQLITE_SHIM_H
#define TIDINGS_CSQLITE_SHIM_H

#include <sqlite3.h>

#endif

/* CSQLite: the SQLite C API, plus the SQLITE_TRANSIENT destructor as a function Swift can call. */
#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

static inline sqlite3_destructor_type CSQLite_transient(void) { return SQLITE_TRANSIENT; }
#endif

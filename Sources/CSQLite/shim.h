// libsqlite3 from Debian (libsqlite3-dev): the history of fires (lookd-history.sqlite).
#include <sqlite3.h>

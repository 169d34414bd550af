// SQLCipher (Debian's libsqlcipher-dev): SQLite with page encryption, the peer of the
// encrypted workloads. Its header is SQLite's, installed apart.
#include <sqlcipher/sqlite3.h>

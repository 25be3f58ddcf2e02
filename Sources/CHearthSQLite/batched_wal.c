#include "hearth_sqlite.h"
#include <string.h>

// A VFS that writes each transaction's write-ahead-log frames with one write(2) per 64 KiB instead of two per frame.
//
// SQLite appends a frame as two writes: its 24-byte header, then the page. A group commit that dirties a few
// hundred 1 KiB pages made a few hundred write(2) calls, which cost the writer thread more than the B-tree work.
// This VFS is the default (unix) VFS except for WAL files, whose writes it collects in memory while they follow
// that header-then-page pattern, and writes out in one call per 64 KiB:
// - at the page of a commit frame (a header whose "database size after commit" field is non-zero, per the WAL
//   file format), inside that xWrite, so the commit fails if the write does, and the frames are in the file
//   before SQLite publishes them to readers in the WAL index;
// - before any other operation on the file (read, sync, truncate, size, close, file control), before a write
//   that is not contiguous, and when 1 MiB has collected.
// Any write outside the pattern flushes what is collected and goes straight through. Durability is unchanged: a
// commit returns after its frames reached the operating system, as with the unix VFS.

typedef struct HearthWalFile {
    sqlite3_file base;
    sqlite3_file *real;        // the unix file, in the memory right after this struct
    unsigned char *buffer;
    sqlite3_int64 start;       // file offset of buffer[0]
    int length;
    int capacity;
    int afterHeader;           // the last collected write was a frame header
    int afterCommitHeader;     // ... of a commit frame
} HearthWalFile;

// The unix VFS writes at most 128 KiB - 1 per call (it masks larger lengths), so a flush goes in 64 KiB pieces.
enum { HEARTH_WAL_FRAME_HEADER = 24, HEARTH_WAL_FLUSH_AT = 1 << 20, HEARTH_WAL_WRITE_MAX = 64 * 1024 };

static sqlite3_vfs *hearth_wal_root = 0;

static int hearth_wal_flush(HearthWalFile *file) {
    if (file->length == 0) return SQLITE_OK;
    int length = file->length;
    file->length = 0;
    file->afterHeader = 0;
    file->afterCommitHeader = 0;
    for (int done = 0; done < length; done += HEARTH_WAL_WRITE_MAX) {
        int piece = length - done < HEARTH_WAL_WRITE_MAX ? length - done : HEARTH_WAL_WRITE_MAX;
        int rc = file->real->pMethods->xWrite(file->real, file->buffer + done, piece, file->start + done);
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

static int hearth_wal_close(sqlite3_file *base) {
    HearthWalFile *file = (HearthWalFile *)base;
    int rc = hearth_wal_flush(file);
    int closed = file->real->pMethods->xClose(file->real);
    sqlite3_free(file->buffer);
    file->buffer = 0;
    return rc != SQLITE_OK ? rc : closed;
}

static int hearth_wal_read(sqlite3_file *base, void *out, int amount, sqlite3_int64 offset) {
    HearthWalFile *file = (HearthWalFile *)base;
    int rc = hearth_wal_flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xRead(file->real, out, amount, offset);
}

static int hearth_wal_append(HearthWalFile *file, const void *data, int amount) {
    if (file->length + amount > file->capacity) {
        int capacity = file->capacity == 0 ? 64 * 1024 : file->capacity;
        while (capacity < file->length + amount) capacity *= 2;
        unsigned char *grown = sqlite3_realloc(file->buffer, capacity);
        if (grown == 0) return SQLITE_NOMEM;
        file->buffer = grown;
        file->capacity = capacity;
    }
    memcpy(file->buffer + file->length, data, amount);
    file->length += amount;
    return SQLITE_OK;
}

static int hearth_wal_write(sqlite3_file *base, const void *data, int amount, sqlite3_int64 offset) {
    HearthWalFile *file = (HearthWalFile *)base;
    const unsigned char *bytes = (const unsigned char *)data;
    int contiguous = file->length == 0 || offset == file->start + file->length;
    int isHeader = amount == HEARTH_WAL_FRAME_HEADER && offset > 0;
    int isPage = file->afterHeader && file->length > 0 && contiguous && amount > HEARTH_WAL_FRAME_HEADER;
    if (!contiguous || (!isHeader && !isPage)) {
        int rc = hearth_wal_flush(file);
        if (rc != SQLITE_OK) return rc;
        if (!isHeader) return file->real->pMethods->xWrite(file->real, data, amount, offset);
    }
    if (file->length == 0) file->start = offset;
    int rc = hearth_wal_append(file, data, amount);
    if (rc != SQLITE_OK) {
        // Nothing of this write is collected; write it through after what is.
        int flushed = hearth_wal_flush(file);
        return flushed != SQLITE_OK ? flushed : file->real->pMethods->xWrite(file->real, data, amount, offset);
    }
    if (isHeader) {
        file->afterHeader = 1;
        // Bytes 4-7 of a frame header: the database size in pages after a commit, zero for other frames.
        file->afterCommitHeader = (bytes[4] | bytes[5] | bytes[6] | bytes[7]) != 0;
        return SQLITE_OK;
    }
    int commit = file->afterCommitHeader;
    file->afterHeader = 0;
    file->afterCommitHeader = 0;
    if (commit || file->length >= HEARTH_WAL_FLUSH_AT) return hearth_wal_flush(file);
    return SQLITE_OK;
}

static int hearth_wal_truncate(sqlite3_file *base, sqlite3_int64 size) {
    HearthWalFile *file = (HearthWalFile *)base;
    int rc = hearth_wal_flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xTruncate(file->real, size);
}

static int hearth_wal_sync(sqlite3_file *base, int flags) {
    HearthWalFile *file = (HearthWalFile *)base;
    int rc = hearth_wal_flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xSync(file->real, flags);
}

static int hearth_wal_file_size(sqlite3_file *base, sqlite3_int64 *size) {
    HearthWalFile *file = (HearthWalFile *)base;
    int rc = hearth_wal_flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xFileSize(file->real, size);
}

static int hearth_wal_lock(sqlite3_file *base, int level) {
    HearthWalFile *file = (HearthWalFile *)base;
    return file->real->pMethods->xLock(file->real, level);
}

static int hearth_wal_unlock(sqlite3_file *base, int level) {
    HearthWalFile *file = (HearthWalFile *)base;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int hearth_wal_check_reserved(sqlite3_file *base, int *out) {
    HearthWalFile *file = (HearthWalFile *)base;
    return file->real->pMethods->xCheckReservedLock(file->real, out);
}

static int hearth_wal_file_control(sqlite3_file *base, int op, void *argument) {
    HearthWalFile *file = (HearthWalFile *)base;
    int rc = hearth_wal_flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xFileControl(file->real, op, argument);
}

static int hearth_wal_sector_size(sqlite3_file *base) {
    HearthWalFile *file = (HearthWalFile *)base;
    return file->real->pMethods->xSectorSize(file->real);
}

static int hearth_wal_device_characteristics(sqlite3_file *base) {
    HearthWalFile *file = (HearthWalFile *)base;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

// Version 1: a WAL file has no shared memory and is never memory-mapped (both belong to the database file).
static const sqlite3_io_methods hearth_wal_methods = {
    1,
    hearth_wal_close,
    hearth_wal_read,
    hearth_wal_write,
    hearth_wal_truncate,
    hearth_wal_sync,
    hearth_wal_file_size,
    hearth_wal_lock,
    hearth_wal_unlock,
    hearth_wal_check_reserved,
    hearth_wal_file_control,
    hearth_wal_sector_size,
    hearth_wal_device_characteristics,
    0, 0, 0, 0, 0, 0,
};

static int hearth_wal_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *base, int flags, int *outFlags) {
    (void)vfs;
    // Everything but a WAL file is the unix VFS's own file, in place.
    if ((flags & SQLITE_OPEN_WAL) == 0) return hearth_wal_root->xOpen(hearth_wal_root, name, base, flags, outFlags);
    HearthWalFile *file = (HearthWalFile *)base;
    memset(file, 0, sizeof(*file));
    file->real = (sqlite3_file *)(file + 1);
    int rc = hearth_wal_root->xOpen(hearth_wal_root, name, file->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        // SQLite does not close a file whose open failed; the unix VFS has cleaned up after itself.
        file->base.pMethods = 0;
        return rc;
    }
    file->base.pMethods = &hearth_wal_methods;
    return SQLITE_OK;
}

static int hearth_wal_delete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    return hearth_wal_root->xDelete(hearth_wal_root, name, syncDirectory);
}

static int hearth_wal_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs;
    return hearth_wal_root->xAccess(hearth_wal_root, name, flags, out);
}

static int hearth_wal_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return hearth_wal_root->xFullPathname(hearth_wal_root, name, size, out);
}

static void *hearth_wal_dl_open(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return hearth_wal_root->xDlOpen(hearth_wal_root, name);
}

static void hearth_wal_dl_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    hearth_wal_root->xDlError(hearth_wal_root, size, out);
}

static void (*hearth_wal_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return hearth_wal_root->xDlSym(hearth_wal_root, handle, symbol);
}

static void hearth_wal_dl_close(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    hearth_wal_root->xDlClose(hearth_wal_root, handle);
}

static int hearth_wal_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return hearth_wal_root->xRandomness(hearth_wal_root, size, out);
}

static int hearth_wal_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return hearth_wal_root->xSleep(hearth_wal_root, microseconds);
}

static int hearth_wal_current_time(sqlite3_vfs *vfs, double *out) {
    (void)vfs;
    return hearth_wal_root->xCurrentTime(hearth_wal_root, out);
}

static int hearth_wal_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return hearth_wal_root->xGetLastError(hearth_wal_root, size, out);
}

static int hearth_wal_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    return hearth_wal_root->xCurrentTimeInt64(hearth_wal_root, out);
}

/// The name connections pass to sqlite3_open_v2 to use the batched-WAL VFS.
const char *hearth_batched_wal_vfs_name(void) { return "hearth-batched-wal"; }

/// Registers the batched-WAL VFS (not as the default). Call once, before opening a connection with it.
int hearth_sqlite_register_batched_wal(void) {
    static sqlite3_vfs vfs;
    if (sqlite3_vfs_find(hearth_batched_wal_vfs_name()) != 0) return SQLITE_OK;
    sqlite3_vfs *root = sqlite3_vfs_find(0);
    if (root == 0 || root->iVersion < 2) return SQLITE_ERROR;
    hearth_wal_root = root;
    memset(&vfs, 0, sizeof(vfs));
    vfs.iVersion = 2;
    vfs.szOsFile = (int)sizeof(HearthWalFile) + root->szOsFile;
    vfs.mxPathname = root->mxPathname;
    vfs.zName = hearth_batched_wal_vfs_name();
    vfs.xOpen = hearth_wal_open;
    vfs.xDelete = hearth_wal_delete;
    vfs.xAccess = hearth_wal_access;
    vfs.xFullPathname = hearth_wal_full_pathname;
    vfs.xDlOpen = hearth_wal_dl_open;
    vfs.xDlError = hearth_wal_dl_error;
    vfs.xDlSym = hearth_wal_dl_sym;
    vfs.xDlClose = hearth_wal_dl_close;
    vfs.xRandomness = hearth_wal_randomness;
    vfs.xSleep = hearth_wal_sleep;
    vfs.xCurrentTime = hearth_wal_current_time;
    vfs.xGetLastError = hearth_wal_last_error;
    vfs.xCurrentTimeInt64 = hearth_wal_current_time_int64;
    return sqlite3_vfs_register(&vfs, 0);
}

#include "hearth_sqlite.h"

// SQLite's own page cache, with one change: the temporary page number a B-tree page split parks a page under.
//
// When a page split leaves the new sibling pages out of page-number order, SQLite's B-tree swaps their numbers
// through a spare one, the "locking page" number (PENDING_BYTE / page size + 1: 1,048,577 with 1 KiB pages), which
// no real page ever has. The default cache remembers the largest number it has seen, and at the end of every
// transaction drops pages above the database size: with that spare number on record, the drop scans the whole hash
// table instead of the last few buckets. Under random inserts a split happens in nearly every group commit, so that
// scan of a 16 MiB cache took a quarter of the writer thread's time.
//
// This cache forwards every call to the default one (SQLITE_CONFIG_GETPCACHE2) but stores a page parked under the
// locking page number as page 0, which SQLite never uses and which is below any limit a truncation sets. Page 0 is
// empty whenever SQLite is not between the three renumberings of one swap.

typedef struct HearthPageCache {
    sqlite3_pcache *inner;
    unsigned int lockingPage;
} HearthPageCache;

// The default cache's methods, filled in by hearth_sqlite_install_page_cache.
static sqlite3_pcache_methods2 hearth_page_cache_default;

// How many page renumberings went through the locking page number; tests read it to know the path ran.
static unsigned long long hearth_page_cache_parked_count = 0;

static inline unsigned int hearth_page_cache_key(HearthPageCache *cache, unsigned int key) {
    return key == cache->lockingPage ? 0 : key;
}

static int hearth_page_cache_init(void *arg) {
    (void)arg;
    return hearth_page_cache_default.xInit ? hearth_page_cache_default.xInit(hearth_page_cache_default.pArg)
                                           : SQLITE_OK;
}

static void hearth_page_cache_shutdown(void *arg) {
    (void)arg;
    if (hearth_page_cache_default.xShutdown) hearth_page_cache_default.xShutdown(hearth_page_cache_default.pArg);
}

static sqlite3_pcache *hearth_page_cache_create(int szPage, int szExtra, int bPurgeable) {
    HearthPageCache *cache = sqlite3_malloc(sizeof(HearthPageCache));
    if (!cache) return 0;
    cache->inner = hearth_page_cache_default.xCreate(szPage, szExtra, bPurgeable);
    if (!cache->inner) {
        sqlite3_free(cache);
        return 0;
    }
    // SQLite's PENDING_BYTE: the first byte of the second gibibyte, a compile-time constant outside its tests.
    cache->lockingPage = szPage > 0 ? (unsigned int)(0x40000000 / szPage) + 1 : 0;
    return (sqlite3_pcache *)cache;
}

static void hearth_page_cache_cachesize(sqlite3_pcache *p, int nCachesize) {
    hearth_page_cache_default.xCachesize(((HearthPageCache *)p)->inner, nCachesize);
}

static int hearth_page_cache_pagecount(sqlite3_pcache *p) {
    return hearth_page_cache_default.xPagecount(((HearthPageCache *)p)->inner);
}

static sqlite3_pcache_page *hearth_page_cache_fetch(sqlite3_pcache *p, unsigned int key, int createFlag) {
    HearthPageCache *cache = (HearthPageCache *)p;
    return hearth_page_cache_default.xFetch(cache->inner, hearth_page_cache_key(cache, key), createFlag);
}

static void hearth_page_cache_unpin(sqlite3_pcache *p, sqlite3_pcache_page *page, int discard) {
    hearth_page_cache_default.xUnpin(((HearthPageCache *)p)->inner, page, discard);
}

static void hearth_page_cache_rekey(
    sqlite3_pcache *p, sqlite3_pcache_page *page, unsigned int oldKey, unsigned int newKey) {
    HearthPageCache *cache = (HearthPageCache *)p;
    if (newKey == cache->lockingPage) __atomic_fetch_add(&hearth_page_cache_parked_count, 1, __ATOMIC_RELAXED);
    hearth_page_cache_default.xRekey(
        cache->inner, page, hearth_page_cache_key(cache, oldKey), hearth_page_cache_key(cache, newKey));
}

static void hearth_page_cache_truncate(sqlite3_pcache *p, unsigned int iLimit) {
    hearth_page_cache_default.xTruncate(((HearthPageCache *)p)->inner, iLimit);
}

static void hearth_page_cache_destroy(sqlite3_pcache *p) {
    HearthPageCache *cache = (HearthPageCache *)p;
    hearth_page_cache_default.xDestroy(cache->inner);
    sqlite3_free(cache);
}

static void hearth_page_cache_shrink(sqlite3_pcache *p) {
    hearth_page_cache_default.xShrink(((HearthPageCache *)p)->inner);
}

/// Installs the cache for every connection the process opens. Effective only before SQLite initializes (the first
/// open); later it returns SQLITE_MISUSE and SQLite keeps its default cache, which is correct, only slower.
int hearth_sqlite_install_page_cache(void) {
    int rc = sqlite3_config(SQLITE_CONFIG_GETPCACHE2, &hearth_page_cache_default);
    if (rc != SQLITE_OK) return rc;
    if (hearth_page_cache_default.iVersion < 1 || !hearth_page_cache_default.xCreate) return SQLITE_ERROR;
    static sqlite3_pcache_methods2 methods = {
        1,
        0,
        hearth_page_cache_init,
        hearth_page_cache_shutdown,
        hearth_page_cache_create,
        hearth_page_cache_cachesize,
        hearth_page_cache_pagecount,
        hearth_page_cache_fetch,
        hearth_page_cache_unpin,
        hearth_page_cache_rekey,
        hearth_page_cache_truncate,
        hearth_page_cache_destroy,
        hearth_page_cache_shrink,
    };
    return sqlite3_config(SQLITE_CONFIG_PCACHE2, &methods);
}

/// Page renumberings parked under the locking page number since the process started (see above).
unsigned long long hearth_sqlite_parked_page_count(void) {
    return __atomic_load_n(&hearth_page_cache_parked_count, __ATOMIC_RELAXED);
}

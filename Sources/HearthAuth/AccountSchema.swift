/// The accounts tables, migrated as component `"auth"` of the shared database (see
/// `SQLiteMigrator.migrate(_:component:migrations:)`); the documents engine owns `PRAGMA user_version`.
enum AccountSchema {
    static let component = "auth"

    static let migrations: [(version: Int, sql: String)] = [
        (
            1,
            """
            CREATE TABLE auth_users(
                uid TEXT PRIMARY KEY,
                email TEXT UNIQUE,
                email_verified INTEGER NOT NULL DEFAULT 0,
                password_hash TEXT,
                password_updated_at INTEGER,
                display_name TEXT,
                photo_url TEXT,
                phone_number TEXT UNIQUE,
                disabled INTEGER NOT NULL DEFAULT 0,
                custom_claims TEXT,
                valid_since INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                last_login_at INTEGER,
                last_refresh_at INTEGER,
                custom_auth INTEGER NOT NULL DEFAULT 0
            ) WITHOUT ROWID;
            -- Refresh tokens are kept only as SHA-256 hashes: a copy of the database does not sign anyone in.
            CREATE TABLE auth_refresh_tokens(
                token_hash BLOB PRIMARY KEY,
                uid TEXT NOT NULL REFERENCES auth_users(uid) ON DELETE CASCADE,
                provider TEXT NOT NULL,
                extra_claims TEXT,
                created_at INTEGER NOT NULL,
                last_used_at INTEGER
            ) WITHOUT ROWID;
            CREATE INDEX auth_refresh_tokens_uid ON auth_refresh_tokens(uid);
            -- One-time codes of verification and reset links, also kept only as hashes.
            CREATE TABLE auth_oob_codes(
                code_hash BLOB PRIMARY KEY,
                uid TEXT NOT NULL REFERENCES auth_users(uid) ON DELETE CASCADE,
                request_type TEXT NOT NULL,
                email TEXT NOT NULL,
                new_email TEXT,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX auth_oob_codes_uid ON auth_oob_codes(uid);
            CREATE INDEX auth_oob_codes_expiry ON auth_oob_codes(expires_at);
            """
        ),
        (
            2,
            """
            -- Provider identities linked to accounts: one row per (provider, provider user ID), at most one per
            -- provider and account.
            CREATE TABLE auth_provider_links(
                provider_id TEXT NOT NULL,
                raw_id TEXT NOT NULL,
                uid TEXT NOT NULL REFERENCES auth_users(uid) ON DELETE CASCADE,
                email TEXT,
                display_name TEXT,
                photo_url TEXT,
                linked_at INTEGER NOT NULL,
                PRIMARY KEY(provider_id, raw_id)
            ) WITHOUT ROWID;
            CREATE UNIQUE INDEX auth_provider_links_uid ON auth_provider_links(uid, provider_id);
            """
        ),
        (
            3,
            """
            -- Multiple accounts per email (a setting): a provider account whose address another account already has
            -- keeps it here, so `email` stays unique — the address's owner, the one a password signs in to.
            ALTER TABLE auth_users ADD COLUMN shared_email TEXT;
            CREATE INDEX auth_users_shared_email ON auth_users(shared_email);
            """
        ),
    ]
}

// swift-tools-version: 6.2
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode and internal imports by default, so C types never
/// leak through a module's public interface.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Hearth",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "hearth", targets: ["hearth"]),
        .executable(name: "hearth-bench", targets: ["hearth-bench"]),
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "Hearth", targets: ["Hearth"]),
        .library(name: "HearthModels", targets: ["HearthModels"]),
    ],
    targets: [
        // ── C layer: module maps only (DESIGN.md §2) ──
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),

        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]),
        .systemLibrary(
            name: "CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]),
        .systemLibrary(
            name: "CCrypt", pkgConfig: "libxcrypt",
            providers: [.apt(["libcrypt-dev"]), .brew(["libxcrypt"])]),

        .systemLibrary(
            name: "CNGHTTP2", pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["libnghttp2"])]),

        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),

        // ── Swift wrappers over the C layer: no Hearth knowledge ──
        // PostgreSQL client on libpq: connections, parameterized queries, SQLSTATE errors, a small pool.
        .target(name: "HearthPostgres", dependencies: ["CLibPQ"], swiftSettings: swiftSettings),
        .target(name: "HearthCrypto", dependencies: ["COpenSSL", "CSodium", "CCrypt"], swiftSettings: swiftSettings),
        .target(name: "HearthMail", dependencies: ["CCurl"], swiftSettings: swiftSettings),
        .target(name: "HearthHTTPClient", dependencies: ["CCurl"], swiftSettings: swiftSettings),
        // Logging every module may use (below the wrappers): one JSON object per line, a capture for tests.
        .target(name: "HearthLog", swiftSettings: swiftSettings),
        // Hearth's own C beside SQLite: the batched write-ahead-log VFS, the page cache, helpers Swift cannot write.
        .target(name: "CHearthSQLite", dependencies: ["CSQLite"], linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(name: "HearthSQLite", dependencies: ["CSQLite", "CHearthSQLite"], swiftSettings: swiftSettings),
        .target(name: "HearthHTTP", dependencies: ["CMicroHTTPD"], swiftSettings: swiftSettings),
        // HTTP/2 (h2c) for gRPC on libnghttp2: the preface check that shares the port and HTTP2Server.
        .target(name: "HearthHTTP2", dependencies: ["CNGHTTP2"], swiftSettings: swiftSettings),

        // ── Shared domain: pure Swift, no I/O ──
        .target(name: "HearthCore", swiftSettings: swiftSettings),

        // ── Client SDK: HearthCore only, never a server module ──
        .target(name: "Hearth", dependencies: ["HearthCore", "HearthSQLite"], swiftSettings: swiftSettings),

        // ── Typed layer on the SDK's public API: Document<Model>, Batch, DataSource (docs/models.md) ──
        .target(name: "HearthModels", dependencies: ["Hearth"], swiftSettings: swiftSettings),

        // ── Server domain ──
        .target(name: "HearthRules", dependencies: ["HearthCore", "HearthCrypto"], swiftSettings: swiftSettings),
        .target(name: "HearthStore", dependencies: ["HearthCore"], swiftSettings: swiftSettings),
        // Files: bytes on disk, metadata in SQLite (README "Storage"); CRC-32C in our own C target
        .target(name: "CHearthChecksum"),
        .target(
            name: "HearthStorage",
            dependencies: ["HearthCore", "HearthSQLite", "HearthCrypto", "CHearthChecksum", "HearthLog"],
            swiftSettings: swiftSettings),
        .target(
            name: "HearthStoreSQLite", dependencies: ["HearthCore", "HearthStore", "HearthSQLite", "HearthLog"],
            swiftSettings: swiftSettings),
        // The PostgreSQL engine (issue 22), so far the document side: commits, point reads, the change log.
        .target(
            name: "HearthStorePostgres",
            dependencies: ["HearthCore", "HearthStore", "HearthPostgres", "HearthAuth", "HearthStorage"],
            swiftSettings: swiftSettings),
        .target(
            name: "HearthAuth",
            dependencies: [
                "HearthCore", "HearthStore", "HearthStoreSQLite", "HearthSQLite", "HearthCrypto", "HearthMail",
                "HearthHTTPClient", "HearthLog",
            ],
            swiftSettings: swiftSettings),
        .target(name: "HearthListen", dependencies: ["HearthCore", "HearthStore"], swiftSettings: swiftSettings),
        // Firestore's gRPC messages (requests and answers) over the shared model; the codec is HearthCore's.
        .target(
            name: "HearthGRPC", dependencies: ["HearthCore", "HearthStore", "HearthListen"],
            swiftSettings: swiftSettings),
        .target(
            name: "HearthServer",
            dependencies: [
                "HearthCore", "HearthHTTP", "HearthStore", "HearthStoreSQLite", "HearthAuth", "HearthMail",
                "HearthListen", "HearthRules", "HearthCrypto", "HearthStorage", "HearthHTTPClient", "HearthLog",
                "HearthSQLite", "HearthGRPC", "HearthStorePostgres", "HearthHTTP2",
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "HearthCLI",
            dependencies: [
                "HearthServer", "HearthAuth", "HearthRules", "HearthStore", "HearthStoreSQLite", "HearthStorePostgres",
                "HearthLog", "HearthHTTP",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "hearth", dependencies: ["HearthCLI"], swiftSettings: swiftSettings),

        // ── Test tooling (DESIGN.md §6): in-process and live-binary harnesses, one SSE client for both channels, a
        // test clock. A test-only dependency, not a product apps link. ──
        .target(
            name: "HearthTesting", dependencies: ["HearthServer", "HearthHTTP", "HearthCore", "HearthLog"],
            swiftSettings: swiftSettings),

        // ── Benchmarks: the server against its baselines (bare HTTP handler, raw SQLite, cp); files through the SDK ──
        .executableTarget(
            name: "hearth-bench",
            dependencies: [
                "HearthHTTP", "HearthSQLite", "HearthCore", "HearthStore", "HearthListen", "HearthRules", "Hearth",
                "HearthHTTP2", "HearthGRPC", "HearthPostgres",
            ],
            path: "Benchmarks/hearth-bench", swiftSettings: swiftSettings),

        // ── Fuzzing: a replayer normally; libFuzzer with -sanitize=fuzzer -DFUZZING (docs/rules.md) ──
        .executableTarget(
            name: "hearth-proto-fuzz", dependencies: ["HearthGRPC", "HearthCore", "HearthListen"],
            path: "Fuzz/hearth-proto-fuzz", swiftSettings: swiftSettings),
        .executableTarget(
            name: "hearth-rules-fuzz", dependencies: ["HearthRules", "HearthCore"], path: "Fuzz/hearth-rules-fuzz",
            swiftSettings: swiftSettings),

        // ── Examples: the seed apps on the SDK (README "Examples"); each UI on a view model with its own tests ──
        .target(
            name: "HearthChatCore", dependencies: ["Hearth"], path: "Examples/Chat/HearthChatCore",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "hearth-chat", dependencies: ["Hearth", "HearthChatCore"], path: "Examples/Chat/hearth-chat",
            swiftSettings: swiftSettings),
        // Todo: the shared view model, its terminal UI, its SwiftUI app (docs/models.md)
        .target(
            name: "HearthTodo", dependencies: ["Hearth", "HearthModels"], path: "Examples/Todo/HearthTodo",
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "hearth-todo", dependencies: ["Hearth", "HearthModels", "HearthTodo"],
            path: "Examples/Todo/hearth-todo", swiftSettings: swiftSettings),
        .executableTarget(
            name: "hearth-todo-swiftui", dependencies: ["Hearth", "HearthModels", "HearthTodo"],
            path: "Examples/TodoSwiftUI", swiftSettings: swiftSettings),

        // ── Tests ──
        .testTarget(name: "HearthCoreTests", dependencies: ["HearthCore"], swiftSettings: swiftSettings),
        .testTarget(name: "HearthSQLiteTests", dependencies: ["HearthSQLite"], swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthRulesTests", dependencies: ["HearthRules", "HearthCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthSDKTests", dependencies: ["Hearth", "HearthCore", "HearthTestSupport"],
            swiftSettings: swiftSettings),
        .target(
            name: "HearthTestSupport", dependencies: ["Hearth", "HearthTesting"], path: "Tests/HearthTestSupport",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthModelsTests", dependencies: ["HearthModels", "Hearth", "HearthTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthTodoTests", dependencies: ["HearthTodo", "HearthModels", "Hearth", "HearthTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(name: "HearthHTTPTests", dependencies: ["HearthHTTP"], swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthStorageTests", dependencies: ["HearthStorage", "HearthCore"], swiftSettings: swiftSettings),
        .testTarget(name: "HearthCryptoTests", dependencies: ["HearthCrypto"], swiftSettings: swiftSettings),
        .testTarget(name: "HearthMailTests", dependencies: ["HearthMail"], swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthHTTPClientTests", dependencies: ["HearthHTTPClient", "HearthHTTP"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthAuthTests",
            dependencies: ["HearthAuth", "HearthCore", "HearthCrypto", "HearthMail", "HearthLog", "HearthStoreSQLite"],
            swiftSettings: swiftSettings),
        // The document engine conformance suite: engine-independent checks each engine's tests run on its own stores.
        .target(
            name: "HearthStoreConformance", dependencies: ["HearthStore", "HearthCore"],
            path: "Tests/HearthStoreConformance", swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthStoreSQLiteTests",
            dependencies: ["HearthStoreSQLite", "HearthStore", "HearthCore", "HearthSQLite", "HearthStoreConformance"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthStorePostgresTests",
            dependencies: [
                "HearthStorePostgres", "HearthStore", "HearthCore", "HearthPostgres", "HearthPostgresTestSupport",
                "HearthStoreConformance", "HearthAuth", "HearthStorage",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthListenTests", dependencies: ["HearthListen", "HearthStore", "HearthCore"],
            swiftSettings: swiftSettings),
        // The seeds' data code with only its imports changed, run against a real server.
        // Built as an app would be, without the package's upcoming features (Ballcap code writes
        // `ListenerRegistration?`, not `any ListenerRegistration`).
        .testTarget(name: "HearthSeedTests", dependencies: ["Hearth", "HearthModels", "HearthTestSupport"]),
        // The same seed code and drivers (symbolic links to HearthSeedTests' files) in Swift 5 language mode, where
        // most apps written against Firebase still are.
        .testTarget(
            name: "HearthSeedSwift5Tests", dependencies: ["Hearth", "HearthModels", "HearthTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "HearthChatTests", dependencies: ["HearthChatCore", "Hearth", "HearthTestSupport"],
            swiftSettings: swiftSettings),
        // The server's routing layer in process, without a socket.
        .testTarget(
            name: "HearthServerTests",
            dependencies: [
                "HearthServer", "HearthHTTP", "HearthCore", "HearthAuth", "HearthLog", "HearthListen", "HearthStore",
                "HearthTesting", "HearthGRPC",
            ],
            swiftSettings: swiftSettings),
        // posix_spawn's close-every-descriptor action, for children that must not inherit this process's sockets
        .target(name: "CHearthSpawn"),
        // Throwaway PostgreSQL clusters (initdb + pg_ctl, as an unprivileged user) for the tests that need a server.
        .target(
            name: "HearthPostgresTestSupport", dependencies: ["HearthPostgres", "CHearthSpawn"],
            path: "Tests/HearthPostgresTestSupport",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthPostgresTests", dependencies: ["HearthPostgres", "HearthPostgresTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthBenchTests", dependencies: ["hearth-bench", "HearthPostgres", "HearthPostgresTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthHTTP2Tests", dependencies: ["HearthHTTP2", "HearthHTTP", "CNGHTTP2"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HearthGRPCTests",
            dependencies: ["HearthGRPC", "HearthCore", "HearthStore", "HearthListen"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "HearthCore", "HearthCrypto", "HearthHTTP", "HearthTesting", "HearthPostgres",
                "HearthPostgresTestSupport",
            ],
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)

internal import CSodium

/// Password hashing with argon2id (libsodium `crypto_pwhash_str_alg`).
///
/// The encoded hash (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`) carries its own salt and cost parameters, so
/// each stored hash verifies with the parameters it was made with, and `needsRehash` tells when a stored hash is
/// weaker than the current parameters and should be replaced at the next successful sign-in.
public struct PasswordHasher: Sendable, Equatable {
    /// argon2id cost parameters. libsodium fixes the parallelism at 1.
    public struct Parameters: Sendable, Equatable {
        /// Passes over memory (argon2's `t`).
        public var iterations: Int
        /// Memory per hash, in bytes (argon2's `m`, times 1024).
        public var memoryBytes: Int

        /// Parameters with `iterations` passes over `memoryBytes` of memory.
        public init(iterations: Int, memoryBytes: Int) {
            self.iterations = iterations
            self.memoryBytes = memoryBytes
        }

        /// OWASP's first recommendation for argon2id: m = 19 MiB, t = 2, p = 1.
        public static let owasp = Parameters(iterations: 2, memoryBytes: 19 * 1024 * 1024)

        /// The cheapest parameters libsodium accepts; only for tests, where hashing speed matters more than cost.
        public static let minimum = Parameters(
            iterations: Int(crypto_pwhash_argon2id_OPSLIMIT_MIN), memoryBytes: Int(crypto_pwhash_argon2id_MEMLIMIT_MIN))
    }

    /// The parameters new hashes are made with.
    public var parameters: Parameters

    /// A hasher making new hashes with `parameters`.
    public init(parameters: Parameters = .owasp) {
        self.parameters = parameters
    }

    /// The encoded argon2id hash of `password` with a fresh random salt. Takes tens of milliseconds and
    /// `parameters.memoryBytes` of memory by design: run it off latency-sensitive threads, with bounded concurrency.
    public func hash(_ password: String) throws(CryptoError) -> String {
        Sodium.ready()
        var output = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        // utf8CString ends in a NUL that is not part of the password, hence `count - 1`.
        let bytes = password.utf8CString
        let rc = bytes.withUnsafeBufferPointer { input in
            crypto_pwhash_str_alg(
                &output, input.baseAddress!, UInt64(input.count - 1), UInt64(parameters.iterations),
                parameters.memoryBytes, crypto_pwhash_ALG_ARGON2ID13)
        }
        guard rc == 0 else { throw CryptoError("argon2id hashing", reason: "out of memory or parameters out of range") }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches `encodedHash`, using the parameters stored in the hash. libsodium compares the
    /// derived keys in constant time. A malformed hash never matches.
    public func verify(_ password: String, against encodedHash: String) -> Bool {
        Sodium.ready()
        guard encodedHash.hasPrefix("$argon2id$") else { return false }
        let bytes = password.utf8CString
        return bytes.withUnsafeBufferPointer { input in
            crypto_pwhash_str_verify(encodedHash, input.baseAddress!, UInt64(input.count - 1)) == 0
        }
    }

    /// Whether `encodedHash` was made with parameters other than the current ones (or is not an argon2id hash).
    public func needsRehash(_ encodedHash: String) -> Bool {
        Sodium.ready()
        return crypto_pwhash_str_needs_rehash(encodedHash, UInt64(parameters.iterations), parameters.memoryBytes) != 0
    }
}

/// libsodium's one-time initialisation.
enum Sodium {
    /// `sodium_init` is idempotent and thread-safe, but this keeps it to one call per process.
    private static let initialized: Bool = sodium_init() >= 0

    static func ready() {
        precondition(initialized, "libsodium failed to initialise")
    }
}

import HearthCore

/// Input checks shared by the flows, with Identity Toolkit's error codes.
enum Validation {
    /// Lower-cased, as Firebase stores addresses.
    static func canonicalEmail(_ email: String) -> String { email.lowercased() }

    /// Firebase's own (lenient) shape check: one `@` with text on both sides, no spaces or line breaks.
    static func isValidEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && email.utf8.count <= 320
            && !email.unicodeScalars.contains { $0.properties.isWhitespace || $0.value < 0x20 }
    }

    /// E.164-like: `+` then 2 to 15 digits.
    static func isValidPhoneNumber(_ phone: String) -> Bool {
        guard phone.first == "+" else { return false }
        let digits = phone.dropFirst()
        return (2...15).contains(digits.count) && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
    }

    /// `WEAK_PASSWORD` below the minimum; very long passwords are refused too (argon2id hashes any length, but a
    /// megabyte "password" is an attack, not a password).
    static func checkPassword(_ password: String, minimum: Int) throws(AuthError) {
        guard password.count >= minimum else { throw AuthError.weakPassword(minimum: minimum) }
        guard password.utf8.count <= 4096 else {
            throw AuthError("WEAK_PASSWORD", "Password must be at most 4096 bytes")
        }
    }

    /// Custom claims as Identity Toolkit's `customAttributes`: a JSON object text of at most 1000 characters
    /// without reserved claim names.
    static func checkCustomClaims(_ text: String) throws(AuthError) {
        guard text.count <= 1000 else { throw AuthError("CLAIMS_TOO_LARGE") }
        guard case .object(let claims)? = try? JSONParser.parse(text) else { throw AuthError("INVALID_CLAIMS") }
        if let reserved = claims.keys.sorted().first(where: CustomTokens.reservedClaims.contains) {
            throw AuthError("FORBIDDEN_CLAIM", reserved)
        }
    }

    /// The host of an absolute URI (`scheme://[user@]host[:port][/…]`), lowercased, without brackets for IPv6;
    /// `nil` when it has none.
    static func host(of text: String) -> String? {
        guard let scheme = text.range(of: "://") else { return nil }
        var authority = text[scheme.upperBound...].prefix { !"/?#".contains($0) }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
        } else {
            host = authority.prefix { $0 != ":" }
        }
        return host.isEmpty ? nil : host.lowercased()
    }

    /// An absolute `http`/`https`/custom-scheme URI with a host, as `continueUrl` must be.
    static func isAbsoluteURI(_ text: String) -> Bool {
        guard let scheme = text.range(of: "://") else { return false }
        return !text[..<scheme.lowerBound].isEmpty && text[scheme.upperBound...].first.map { $0 != "/" } == true
    }
}

import HearthCore

/// The files `firebase auth:export` writes and `firebase auth:import` reads, so users move between Firebase and
/// Hearth (`hearth users export` / `hearth users import`) in either direction.
///
/// JSON: `{"users": [...]}` with Identity Toolkit's `UserInfo` members (`lastSignedInAt` for the last sign-in, bytes
/// in base64), the only members Firebase's import accepts. CSV: one account per line, no header, 28 columns — uid,
/// email, email verified, password hash, salt, display name, photo URL, then four columns (raw ID, email, display
/// name, photo URL) each for `google.com`, `facebook.com`, `twitter.com` and `github.com`, then creation time, last
/// sign-in time, phone number, disabled and custom claims — and a trailing comma; a field with a comma, a quote or a
/// line break is quoted, quotes inside doubled.
public enum UserExportFile {
    /// The providers the CSV has columns for, and their first column.
    static let csvProviders: [(id: String, column: Int)] = [
        ("google.com", 7), ("facebook.com", 11), ("twitter.com", 15), ("github.com", 19),
    ]
    /// The providers Firebase's import takes in `providerUserInfo`.
    static let importableProviders: Set<String> = Set(csvProviders.map(\.id))

    /// `users` as `firebase auth:export`'s JSON. Password hashes are left out: Hearth's are argon2id, which
    /// Firebase's import does not read (and a hash imported from elsewhere is replaced at its user's first sign-in);
    /// users with a password reset it after a move, or keep it by moving the data directory instead.
    public static func json(_ users: [UserRecord]) -> String {
        let objects: [JSONValue] = users.map { user in
            var object: [String: JSONValue] = [
                "localId": .string(user.uid), "emailVerified": .bool(user.emailVerified),
                "disabled": .bool(user.disabled), "createdAt": .string(String(user.createdAt)),
            ]
            if let email = user.email { object["email"] = .string(email) }
            if let name = user.displayName { object["displayName"] = .string(name) }
            if let photo = user.photoURL { object["photoUrl"] = .string(photo) }
            if let phone = user.phoneNumber { object["phoneNumber"] = .string(phone) }
            if let login = user.lastLoginAt { object["lastSignedInAt"] = .string(String(login)) }
            if let claims = user.customClaims { object["customAttributes"] = .string(claims) }
            let links = user.providerLinks.filter { importableProviders.contains($0.providerID) }
            if !links.isEmpty {
                object["providerUserInfo"] = .array(links.map { .object($0.json) })
            }
            return .object(object)
        }
        return JSONValue.object(["users": .array(objects)]).jsonString + "\n"
    }

    /// `users` as `firebase auth:export`'s CSV (password hashes left out, as in ``json(_:)``).
    public static func csv(_ users: [UserRecord]) -> String {
        var text = ""
        for user in users {
            var fields = [String](repeating: "", count: 28)
            fields[0] = user.uid
            fields[1] = user.email ?? ""
            fields[2] = user.emailVerified ? "true" : "false"
            fields[5] = user.displayName ?? ""
            fields[6] = user.photoURL ?? ""
            for (provider, column) in csvProviders {
                guard let link = user.providerLinks.first(where: { $0.providerID == provider }) else { continue }
                fields[column] = link.rawID
                fields[column + 1] = link.email ?? ""
                fields[column + 2] = link.displayName ?? ""
                fields[column + 3] = link.photoURL ?? ""
            }
            fields[23] = String(user.createdAt)
            fields[24] = user.lastLoginAt.map(String.init) ?? ""
            fields[25] = user.phoneNumber ?? ""
            fields[26] = user.disabled ? "true" : "false"
            fields[27] = user.customClaims ?? ""
            text += fields.map(quoted).joined(separator: ",") + ",\n"
        }
        return text
    }

    /// The accounts of a CSV export.
    /// - Throws: `INVALID_CSV` naming the line of a record with too few columns or an unclosed quote.
    public static func users(csv text: String) throws(AuthError) -> [ImportedUser] {
        var users: [ImportedUser] = []
        for (line, fields) in try records(text).enumerated() where fields != [""] {
            guard fields.count >= 27 else {
                throw AuthError("INVALID_CSV", "record \(line + 1) has \(fields.count) columns, not 28")
            }
            func field(_ index: Int) -> String? {
                index < fields.count && !fields[index].isEmpty ? fields[index] : nil
            }
            var user = ImportedUser()
            user.localID = field(0)
            user.email = field(1)
            user.emailVerified = field(2) == "true"
            user.passwordHash = ImportedUser.bytes(field(3))
            user.salt = ImportedUser.bytes(field(4))
            user.displayName = field(5)
            user.photoURL = field(6)
            for (provider, column) in csvProviders {
                guard let rawID = field(column) else { continue }
                var link = ProviderLink(providerID: provider, rawID: rawID)
                link.email = field(column + 1)
                link.displayName = field(column + 2)
                link.photoURL = field(column + 3)
                user.providers.append(link)
            }
            user.createdAt = field(23).flatMap { Int64($0) }
            user.lastLoginAt = field(24).flatMap { Int64($0) }
            user.phoneNumber = field(25)
            user.disabled = field(26) == "true"
            user.customAttributes = field(27)
            users.append(user)
        }
        return users
    }

    /// RFC 4180 records: fields split at commas, a quoted field may hold commas, doubled quotes and line breaks.
    static func records(_ text: String) throws(AuthError) -> [[String]] {
        var records: [[String]] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var chars = Array(text)[...]
        while let char = chars.popFirst() {
            if quoted {
                if char == "\"" {
                    if chars.first == "\"" {
                        field.append("\"")
                        chars.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(char)
                }
                continue
            }
            switch char {
            case "\"" where field.isEmpty: quoted = true
            case ",":
                fields.append(field)
                field = ""
            case "\n", "\r\n", "\r":
                fields.append(field)
                records.append(fields)
                fields = []
                field = ""
            default: field.append(char)
            }
        }
        if quoted { throw AuthError("INVALID_CSV", "record \(records.count + 1) has a quote that never closes") }
        if !field.isEmpty || !fields.isEmpty {
            fields.append(field)
            records.append(fields)
        }
        return records
    }

    private static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else {
            return field
        }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

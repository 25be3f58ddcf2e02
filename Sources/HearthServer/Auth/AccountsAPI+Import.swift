import Foundation
import HearthAuth
import HearthCore
import HearthHTTP

/// `accounts:batchCreate` (admin): Identity Toolkit's `UploadAccountRequest` in, `UploadAccountResponse` out, with
/// per-user errors as `error: [{index, message}]`.
extension AccountsAPI {
    func batchCreate(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse {
        let fields = Fields(object: body)
        var algorithm: PasswordHashAlgorithm?
        if let name = fields.string("hashAlgorithm"), !name.isEmpty {
            var parameters = PasswordHashAlgorithm(name: name.uppercased())
            parameters.signerKey = Self.bytes(fields.string("signerKey"))
            parameters.saltSeparator = Self.bytes(fields.string("saltSeparator")) ?? []
            parameters.rounds = fields.int("rounds").map { Int($0) }
            parameters.memoryCost = fields.int("memoryCost").map { Int($0) }
            parameters.cpuMemoryCost = fields.int("cpuMemCost").map { Int($0) }
            parameters.blockSize = fields.int("blockSize").map { Int($0) }
            parameters.parallelization = fields.int("parallelization").map { Int($0) }
            algorithm = parameters
        }
        let users = (body["users"]?.arrayValue ?? []).map(Self.importedUser)
        let refused = try service.batchCreate(users, algorithm: algorithm)
        var object: [String: JSONValue] = ["kind": "identitytoolkit#UploadAccountResponse"]
        if !refused.isEmpty {
            object["error"] = .array(
                refused.map { ["index": .integer(Int64($0.index)), "message": .string($0.message)] })
        }
        return AccountsJSON.response(object)
    }

    static func importedUser(_ json: JSONValue) -> ImportedUser {
        let fields = Fields(object: json.objectValue ?? [:])
        var user = ImportedUser()
        user.localID = fields.string("localId")
        user.email = fields.string("email")
        user.emailVerified = fields.bool("emailVerified") ?? false
        user.displayName = fields.string("displayName")
        user.photoURL = fields.string("photoUrl")
        user.phoneNumber = fields.string("phoneNumber")
        user.disabled = fields.bool("disabled") ?? false
        user.customAttributes = fields.string("customAttributes")
        user.createdAt = fields.int("createdAt")
        user.lastLoginAt = fields.int("lastLoginAt")
        user.passwordHash = bytes(fields.string("passwordHash"))
        user.salt = bytes(fields.string("salt"))
        user.providers = (json["providerUserInfo"]?.arrayValue ?? []).map { info in
            var link = ProviderLink(
                providerID: info["providerId"]?.stringValue ?? "", rawID: info["rawId"]?.stringValue ?? "")
            link.email = info["email"]?.stringValue.map { $0.lowercased() }
            link.displayName = info["displayName"]?.stringValue
            link.photoURL = info["photoUrl"]?.stringValue
            return link
        }
        return user
    }

    /// Proto3 JSON `bytes`: base64, standard or URL-safe, padded or not.
    static func bytes(_ text: String?) -> [UInt8]? {
        guard let text, !text.isEmpty else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard = standard.trimmingCharacters(in: ["="])
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map(Array.init)
    }
}

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
            parameters.signerKey = ImportedUser.bytes(fields.string("signerKey"))
            parameters.saltSeparator = ImportedUser.bytes(fields.string("saltSeparator")) ?? []
            parameters.rounds = fields.int("rounds").map { Int($0) }
            parameters.memoryCost = fields.int("memoryCost").map { Int($0) }
            parameters.cpuMemoryCost = fields.int("cpuMemCost").map { Int($0) }
            parameters.blockSize = fields.int("blockSize").map { Int($0) }
            parameters.parallelization = fields.int("parallelization").map { Int($0) }
            // Proto3 JSON: the enum's name or its number (SALT_AND_PASSWORD = 1).
            parameters.saltFirst = [.string("SALT_AND_PASSWORD"), .integer(1)].contains(body["passwordHashOrder"])
            algorithm = parameters
        }
        let users = (body["users"]?.arrayValue ?? []).map(ImportedUser.init(json:))
        let refused = try service.batchCreate(users, algorithm: algorithm)
        var object: [String: JSONValue] = ["kind": "identitytoolkit#UploadAccountResponse"]
        if !refused.isEmpty {
            object["error"] = .array(
                refused.map { ["index": .integer(Int64($0.index)), "message": .string($0.message)] })
        }
        return AccountsJSON.response(object)
    }
}

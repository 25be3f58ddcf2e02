import HearthCore
import HearthHTTP

/// Query-parameter checks shared by the REST handlers.
enum RequestParameters {
    /// System parameters every Google API accepts.
    static let common: Set<String> = [
        "key", "alt", "$alt", "prettyPrint", "$prettyPrint", "$.xgafv", "access_token", "quotaUser", "fields",
    ]

    /// Rejects query parameters the method does not define, as Google's APIs do. `allowed` is a short list
    /// (an array literal costs no hashing, and most requests carry no query at all).
    static func check(_ request: HTTPRequest, allowed: [String]) throws(HearthError) {
        for item in request.query where !allowed.contains(item.name) && !common.contains(item.name) {
            throw .invalidArgument(
                "Invalid JSON payload received. Unknown name \"\(item.name.prefix(64))\": Cannot bind query parameter. Field '\(item.name.prefix(64))' could not be found in request message."
            )
        }
    }

    /// The field paths of a repeated `name.fieldPaths` parameter, or `nil` when absent.
    static func fieldPaths(_ request: HTTPRequest, _ name: String) throws(HearthError) -> [FieldPath]? {
        let values = request.queryValues(name)
        guard !values.isEmpty else { return nil }
        var paths: [FieldPath] = []
        for value in values { paths.append(try FieldPath(parsing: value)) }
        return paths
    }

    /// A non-negative integer parameter.
    static func integer(_ request: HTTPRequest, _ name: String) throws(HearthError) -> Int? {
        guard let text = request.queryValue(name) else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw .invalidArgument("Invalid value for \(name): \"\(text.prefix(20))\" is not a non-negative integer.")
        }
        return value
    }

    /// A boolean parameter: `true` or `false`.
    static func boolean(_ request: HTTPRequest, _ name: String) throws(HearthError) -> Bool? {
        guard let text = request.queryValue(name) else { return nil }
        switch text {
        case "true": return true
        case "false": return false
        default:
            throw .invalidArgument(
                "Invalid value for \(name): \"\(text.prefix(20))\" is not a boolean; use true or false.")
        }
    }

    /// Parses a JSON request body; an empty body reads as `{}`.
    static func body(_ request: HTTPRequest) throws(HearthError) -> JSONValue {
        try body(request.body)
    }

    /// Parses JSON body bytes (a relayed request's, RelayedListenRequest); empty reads as `{}`.
    static func body(_ bytes: [UInt8]) throws(HearthError) -> JSONValue {
        if bytes.isEmpty { return .object([:]) }
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw .invalidArgument("Invalid JSON payload received. \(error)")
        }
    }
}

import HearthCore
import HearthCrypto

/// A compact JSON Web Signature (`header.payload.signature`), decoded but not yet trusted.
struct JWT: Sendable {
    var header: [String: JSONValue]
    var payload: [String: JSONValue]
    /// `base64url(header) + "." + base64url(payload)`: the bytes the signature covers.
    var signingInput: [UInt8]
    var signature: [UInt8]

    /// Tokens longer than this are refused before any parsing: real ones are about 1 KB.
    static let maximumLength = 16 * 1024

    /// Splits and decodes `token`; `nil` when it is not three base64url parts holding two JSON objects.
    static func decode(_ token: String) -> JWT? {
        guard token.utf8.count <= maximumLength else { return nil }
        // Split as bytes: splitting the String works on Characters and cost more than the RSA check.
        let bytes = Array(token.utf8)
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(utf8: parts[0]),
            let payloadBytes = Base64URL.decode(utf8: parts[1]), let signature = Base64URL.decode(utf8: parts[2]),
            case .object(let header)? = try? JSONParser.parse(headerBytes),
            case .object(let payload)? = try? JSONParser.parse(payloadBytes)
        else { return nil }
        return JWT(
            header: header, payload: payload, signingInput: Array(bytes[..<parts[2].startIndex].dropLast()),
            signature: signature)
    }

    /// Signs `payload` with RS256 under `key`, naming it `keyID` in the header.
    static func signRS256(payload: [String: JSONValue], keyID: String, key: RSAPrivateKey) throws(CryptoError) -> String
    {
        let header: JSONValue = ["alg": "RS256", "kid": .string(keyID), "typ": "JWT"]
        let input =
            Base64URL.encode(header.serialized()) + "." + Base64URL.encode(JSONValue.object(payload).serialized())
        return input + "." + Base64URL.encode(try key.signatureSHA256(for: Array(input.utf8)))
    }

    /// An unsigned token (`alg: none`), as the Admin SDKs mint custom tokens for an emulator; tests use it.
    static func unsigned(payload: [String: JSONValue]) -> String {
        let header: JSONValue = ["alg": "none", "typ": "JWT"]
        return Base64URL.encode(header.serialized()) + "." + Base64URL.encode(JSONValue.object(payload).serialized())
            + "."
    }

    var algorithm: String? { header["alg"]?.stringValue }
    var keyID: String? { header["kid"]?.stringValue }

    /// A numeric claim (`iat`, `exp`, `auth_time`) as whole seconds; JWT allows fractions, which are truncated.
    func seconds(_ claim: String) -> Int64? {
        switch payload[claim] {
        case .integer(let value)?: value
        case .double(let value)? where value.isFinite && abs(value) < 1e15: Int64(value)
        default: nil
        }
    }
}

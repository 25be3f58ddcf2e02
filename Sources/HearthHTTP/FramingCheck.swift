internal import CMicroHTTPD
import Foundation

/// Rejects requests whose body framing is ambiguous or unsupported, before the body is read or the responder runs.
///
/// libmicrohttpd 0.9.75 (Debian 12) takes the first of two different `Content-Length`s, keeps the connection open
/// when both `Content-Length` and `Transfer-Encoding` are sent, and waits for a body it can never delimit under a
/// transfer coding other than `chunked`. Behind a proxy that frames the same bytes differently, the first two let a
/// client smuggle a second request (RFC 9112 §6.1, §6.3), so each is answered here and the connection closed.
enum FramingCheck {
    /// The error response for the request on `connection`, or `nil` when its framing is sound.
    static func rejection(_ connection: OpaquePointer) -> HTTPResponse? {
        var fields = FramingFields()
        withUnsafeMutablePointer(to: &fields) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, collectFramingField, pointer)
        }
        return rejection(contentLengths: fields.contentLengths, transferEncodings: fields.transferEncodings)
    }

    /// The decision on the `Content-Length` and `Transfer-Encoding` values a request carried, in order.
    static func rejection(contentLengths: [String], transferEncodings: [String]) -> HTTPResponse? {
        if !transferEncodings.isEmpty {
            if !contentLengths.isEmpty {
                // RFC 9112 §6.1: the server MAY reject such a request and MUST close the connection after it.
                return error(400, "A request must not carry both Content-Length and Transfer-Encoding.")
            }
            let codings = transferEncodings.flatMap { $0.split(separator: ",") }.map {
                $0.trimmingCharacters(in: blanks).lowercased()
            }
            guard codings == ["chunked"] else {
                // RFC 9112 §6.1: an unknown transfer coding SHOULD be answered 501; `chunked` must be the only and
                // final one here, since no other coding is decoded.
                return error(
                    501,
                    "Transfer-Encoding \"\(transferEncodings.joined(separator: ", "))\" is not supported; "
                        + "send Content-Length or Transfer-Encoding: chunked.", status: "UNIMPLEMENTED")
            }
            return nil
        }
        let lengths = Set(
            contentLengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map {
                $0.trimmingCharacters(in: blanks)
            })
        if lengths.count > 1 {
            // RFC 9112 §6.3 item 5: differing lengths make the message unrecoverable.
            return error(400, "The request carries more than one different Content-Length.")
        }
        return nil
    }

    /// A google.rpc.Status-shaped JSON error that also closes the connection.
    static func error(_ code: Int, _ message: String, status: String = "INVALID_ARGUMENT") -> HTTPResponse {
        let body = "{\"error\":{\"code\":\(code),\"message\":\"\(jsonEscaped(message))\",\"status\":\"\(status)\"}}"
        return HTTPResponse(
            status: code,
            headers: [("Content-Type", "application/json; charset=utf-8"), ("Connection", "close")],
            body: Array(body.utf8))
    }

    /// Quotes and backslashes escaped; control characters (only a client's header value could hold one) become `?`.
    private static func jsonEscaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20: result += "?"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static let blanks = CharacterSet(charactersIn: " \t")
}

private struct FramingFields {
    var contentLengths: [String] = []
    var transferEncodings: [String] = []
}

private func collectFramingField(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, keySize: Int,
    value: UnsafePointer<CChar>?, valueSize: Int
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let name = String(cString: key).lowercased()
    let text = value.map { String(cString: $0) } ?? ""
    let fields = cls.assumingMemoryBound(to: FramingFields.self)
    if name == "content-length" { fields.pointee.contentLengths.append(text) }
    if name == "transfer-encoding" { fields.pointee.transferEncodings.append(text) }
    return .YES
}

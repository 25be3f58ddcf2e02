internal import CCurl
import Foundation

/// Sends mail through an SMTP server with libcurl, one connection per message.
///
/// Each `send` uses its own curl handle, so concurrent sends from different threads are safe.
public struct SMTPMailer: Mailer {
    /// The server and credentials.
    public let configuration: SMTPConfiguration

    /// A mailer for `configuration`.
    public init(configuration: SMTPConfiguration) {
        self.configuration = configuration
    }

    /// Delivers `message` (its `from`, or the configured sender when empty) and returns once the server accepted it.
    public func send(_ message: MailMessage) throws(MailError) {
        var message = message
        if message.from.isEmpty { message.from = configuration.from }
        try message.validate()
        let hostname = ProcessInfo.processInfo.hostName
        let body = MIMEFormatter.render(
            message, date: Date(),
            messageID: "\(UUID().uuidString.lowercased())@\(hostname.isEmpty ? "hearth" : hostname)",
            boundary: "hearth-\(UUID().uuidString.lowercased())")
        try CurlSession.send(
            body, from: message.senderAddress, to: message.recipientAddress, configuration: configuration)
    }
}

/// One libcurl SMTP conversation.
enum CurlSession {
    /// `curl_global_init` is not thread-safe; a `static let` runs it exactly once, before the first handle.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// The message bytes libcurl pulls through the read callback.
    final class Upload {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    static func send(_ body: [UInt8], from: String, to: String, configuration: SMTPConfiguration) throws(MailError) {
        guard globalInit == CURLE_OK else { throw MailError(.transport, "libcurl failed to initialise") }
        guard let handle = curl_easy_init() else { throw MailError(.transport, "libcurl could not create a handle") }
        defer { curl_easy_cleanup(handle) }
        let recipients = curl_slist_append(nil, "<\(to)>")
        defer { curl_slist_free_all(recipients) }
        let upload = Upload(body)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        let code: CURLcode = withExtendedLifetime(upload) {
            errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
                var ok = true
                func set(_ rc: CURLcode) { ok = ok && rc == CURLE_OK }
                set(hearth_curl_setopt_string(handle, CURLOPT_URL, configuration.url))
                set(hearth_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
                set(hearth_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, configuration.timeoutSeconds))
                set(hearth_curl_setopt_long(handle, CURLOPT_TIMEOUT, configuration.timeoutSeconds))
                set(hearth_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorPointer.baseAddress))
                if configuration.security == .startTLS {
                    set(hearth_curl_setopt_long(handle, CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)))
                }
                if configuration.allowInsecureTLS {
                    set(hearth_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0))
                    set(hearth_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0))
                }
                if let username = configuration.username, !username.isEmpty {
                    set(hearth_curl_setopt_string(handle, CURLOPT_USERNAME, username))
                    set(hearth_curl_setopt_string(handle, CURLOPT_PASSWORD, configuration.password ?? ""))
                }
                set(hearth_curl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(from)>"))
                set(hearth_curl_setopt_slist(handle, CURLOPT_MAIL_RCPT, recipients))
                set(hearth_curl_setopt_long(handle, CURLOPT_UPLOAD, 1))
                set(hearth_curl_setopt_read_function(handle, curlReadCallback))
                set(hearth_curl_setopt_pointer(handle, CURLOPT_READDATA, Unmanaged.passUnretained(upload).toOpaque()))
                guard ok else { return CURLE_BAD_FUNCTION_ARGUMENT }
                return curl_easy_perform(handle)
            }
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let summary = String(cString: curl_easy_strerror(code))
            throw MailError(.transport, detail.isEmpty ? summary : "\(summary): \(detail)")
        }
    }
}

/// libcurl's read callback: copies the next slice of the message into curl's buffer; 0 ends the upload. A plain
/// function, not a closure, so it carries no actor isolation onto curl's thread.
private func curlReadCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let userData else { return 0 }
    let upload = Unmanaged<CurlSession.Upload>.fromOpaque(userData).takeUnretainedValue()
    let length = min(size * count, upload.bytes.count - upload.offset)
    guard length > 0 else { return 0 }
    upload.bytes.withUnsafeBufferPointer { source in
        UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + upload.offset, byteCount: length)
    }
    upload.offset += length
    return length
}

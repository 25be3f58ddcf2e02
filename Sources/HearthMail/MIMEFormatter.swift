import Foundation

/// Renders a `MailMessage` as an RFC 5322 / MIME message with CRLF line endings.
///
/// Bodies are base64-encoded (RFC 2045) so any UTF-8 text and any line length survive every relay, and non-ASCII
/// subjects become RFC 2047 encoded words.
enum MIMEFormatter {
    static func render(_ message: MailMessage, date: Date, messageID: String, boundary: String) -> [UInt8] {
        var lines: [String] = [
            "Date: \(rfc5322Date(date))",
            "From: \(message.from)",
            "To: \(message.to)",
            "Subject: \(encodedHeader(message.subject))",
            "Message-ID: <\(messageID)>",
            "MIME-Version: 1.0",
        ]
        if let html = message.html {
            lines.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
            lines.append("")
            lines.append("--\(boundary)")
            lines += part(message.text, type: "text/plain")
            lines.append("--\(boundary)")
            lines += part(html, type: "text/html")
            lines.append("--\(boundary)--")
        } else {
            lines += part(message.text, type: "text/plain")
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    private static func part(_ body: String, type: String) -> [String] {
        let encoded = Data(body.utf8).base64EncodedString(options: [
            .lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed,
        ])
        return [
            "Content-Type: \(type); charset=UTF-8",
            "Content-Transfer-Encoding: base64",
            "",
            encoded,
        ]
    }

    /// ASCII text as is; anything else as one `=?UTF-8?B?…?=` word per 45 bytes, folded onto continuation lines.
    static func encodedHeader(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { !$0.isASCII }) else { return text }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45 {
                words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    static func rfc5322Date(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return String(
            format: "%@, %02d %@ %04d %02d:%02d:%02d +0000", days[Int(parts.tm_wday)], parts.tm_mday,
            months[Int(parts.tm_mon)], parts.tm_year + 1900, parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}

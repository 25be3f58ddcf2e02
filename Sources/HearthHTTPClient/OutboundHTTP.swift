internal import CCurl

/// Sends ``OutboundRequest``s with libcurl: one handle per request (so any thread may send), no redirects, only
/// `https` (or also `http` when the request allows it), bounded in time and size.
public enum OutboundHTTP {
    /// `curl_global_init` is not thread-safe; a `static let` runs it once, before the first handle.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Sends `request` and waits for the whole response.
    public static func send(_ request: OutboundRequest) throws(OutboundHTTPError) -> OutboundResponse {
        let lowered = request.url.lowercased()
        guard lowered.hasPrefix("https://") || (request.allowPlainHTTP && lowered.hasPrefix("http://")) else {
            throw OutboundHTTPError(.invalidURL, "only https URLs are fetched")
        }
        guard globalInit == CURLE_OK else { throw OutboundHTTPError(.transport, "libcurl failed to initialise") }
        guard let handle = curl_easy_init() else {
            throw OutboundHTTPError(.transport, "libcurl could not create a handle")
        }
        defer { curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers { list = curl_slist_append(list, "\(name): \(value)") }
        // An empty `Expect:` keeps curl from waiting for `100 Continue` before a POST body.
        list = curl_slist_append(list, "Expect:")
        defer { curl_slist_free_all(list) }
        let sink = ResponseSink(limit: request.maximumResponseBytes)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = withExtendedLifetime(sink) {
            errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
                request.body.withUnsafeBufferPointer { body in
                    var ok = true
                    func set(_ rc: CURLcode) { ok = ok && rc == CURLE_OK }
                    let context = Unmanaged.passUnretained(sink).toOpaque()
                    set(hearth_curl_setopt_string(handle, CURLOPT_URL, request.url))
                    set(
                        hearth_curl_setopt_string(
                            handle, CURLOPT_PROTOCOLS_STR, request.allowPlainHTTP ? "http,https" : "https"))
                    set(hearth_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
                    set(hearth_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
                    set(hearth_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, min(request.timeoutSeconds, 5)))
                    set(hearth_curl_setopt_long(handle, CURLOPT_TIMEOUT, request.timeoutSeconds))
                    set(hearth_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorPointer.baseAddress))
                    set(hearth_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, list))
                    set(hearth_curl_setopt_string(handle, CURLOPT_USERAGENT, "Hearth"))
                    set(hearth_curl_setopt_write_function(handle, outboundBodyCallback))
                    set(hearth_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
                    set(hearth_curl_setopt_header_function(handle, outboundHeaderCallback))
                    set(hearth_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context))
                    if request.method == "POST" {
                        set(hearth_curl_setopt_long(handle, CURLOPT_POST, 1))
                        set(hearth_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count))
                        set(
                            hearth_curl_setopt_pointer(
                                handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: body.baseAddress)))
                    } else if request.method != "GET" {
                        set(hearth_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method))
                    }
                    guard ok else { return CURLE_BAD_FUNCTION_ARGUMENT }
                    return curl_easy_perform(handle)
                }
            }
        }
        if sink.overflowed {
            throw OutboundHTTPError(.tooLarge, "the response is longer than \(request.maximumResponseBytes) bytes")
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let summary = String(cString: curl_easy_strerror(code))
            let kind: OutboundHTTPError.Kind =
                code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT ? .invalidURL : .transport
            throw OutboundHTTPError(kind, detail.isEmpty ? summary : "\(summary): \(detail)")
        }
        var status = 0
        _ = hearth_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return OutboundResponse(status: status, headers: sink.headers, body: sink.body)
    }
}

/// What libcurl hands back for one request, filled by the callbacks on the sending thread.
final class ResponseSink {
    let limit: Int
    var body: [UInt8] = []
    var headers: [String: String] = [:]
    var overflowed = false

    init(limit: Int) { self.limit = limit }

    /// Adds one header line; a status line (a new response, e.g. after `100 Continue`) starts the fields afresh.
    func addHeaderLine(_ line: String) {
        if line.hasPrefix("HTTP/") {
            headers = [:]
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t", "\r", "\n", "\r\n"])
        headers[name] = value
    }
}

extension Substring {
    /// Without leading and trailing members of `set`; `"\r\n"` is one `Character`, so it must be in the set too.
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        var view = self
        while let first = view.first, set.contains(first) { view.removeFirst() }
        while let last = view.last, set.contains(last) { view.removeLast() }
        return String(view)
    }
}

/// libcurl's body callback; returning less than it was given (once over the limit) aborts the transfer. A plain
/// function, not a closure, so it carries no actor isolation onto curl's thread.
private func outboundBodyCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let userData else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(userData).takeUnretainedValue()
    let length = size * count
    guard sink.body.count + length <= sink.limit else {
        sink.overflowed = true
        return 0
    }
    sink.body.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: length))
    return length
}

/// libcurl's header callback: one header line per call.
private func outboundHeaderCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let userData else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(userData).takeUnretainedValue()
    let length = size * count
    // Header lines are bounded by curl (100 KB); a flood of them is bounded by the body limit's peer, the timeout.
    guard sink.headers.count < 200 else { return length }
    sink.addHeaderLine(String(decoding: UnsafeRawBufferPointer(start: buffer, count: length), as: UTF8.self))
    return length
}

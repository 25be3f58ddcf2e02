import HearthHTTP

/// One family of routes (documents, operations, accounts, …). The responder asks each in turn; the first
/// that recognises the request answers it.
protocol API: Sendable {
    /// The route name (for metrics) and the reply, or `nil` when the request is not this API's.
    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)?
}

import HearthHTTP

/// An API some of whose requests stream their bodies (file uploads). The responder asks each streaming API once a
/// request's head is in; the first that claims the request decides what happens to its body.
protocol StreamingAPI: Sendable {
    /// The route name (for metrics) and the body plan, or `nil` when the request is not this API's or its body is
    /// buffered as usual.
    func bodyPlan(for request: HTTPRequest) -> (route: String, plan: HTTPBodyPlan)?
}

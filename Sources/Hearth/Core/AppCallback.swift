/// An app's completion, listener or observer, typed as Firebase types them: a plain closure, not `@Sendable`, so one
/// that updates a view controller's state compiles in Swift 6 mode too (written in a main-actor method it is main-actor
/// isolated, and the callback queue is the main queue by default).
///
/// The SDK carries it through its concurrent machinery in this box and calls it only on the service's callback queue
/// (``CallbackQueue``), one call after another, never concurrently and never inside the call that registered it —
/// the contract that makes handing a non-`Sendable` closure across threads safe, as in Firebase. An app that sets a
/// callback queue other than the main one must not hand main-actor closures to it (Swift 6 checks this at run time).
struct AppCallback<Function>: @unchecked Sendable {
    let function: Function
}

/// `function`, callable from the SDK's `@Sendable` paths, which deliver it on the callback queue only.
func callbackQueueBound<A>(_ function: @escaping (A) -> Void) -> @Sendable (A) -> Void {
    let callback = AppCallback(function: function)
    return { callback.function($0) }
}

/// `function`, callable from the SDK's `@Sendable` paths, which deliver it on the callback queue only.
func callbackQueueBound<A, B>(_ function: @escaping (A, B) -> Void) -> @Sendable (A, B) -> Void {
    let callback = AppCallback(function: function)
    return { callback.function($0, $1) }
}

/// An optional completion, callable from the SDK's `@Sendable` paths, which deliver it on the callback queue only.
func callbackQueueBound<A>(_ function: ((A) -> Void)?) -> (@Sendable (A) -> Void)? {
    function.map { callbackQueueBound($0) }
}

/// An optional two-argument completion, callable from the SDK's `@Sendable` paths, which deliver it on the callback
/// queue only.
func optionalCallbackQueueBound<A, B>(_ function: ((A, B) -> Void)?) -> (@Sendable (A, B) -> Void)? {
    function.map { callbackQueueBound($0) }
}

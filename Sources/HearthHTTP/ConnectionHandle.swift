/// A libmicrohttpd connection pointer that may cross threads.
///
/// `@unchecked Sendable` because the only cross-thread use is `MHD_resume_connection`, which libmicrohttpd
/// documents as safe from any thread; every other use stays on the connection's daemon thread. Holders guard it with
/// a lock that the completion path also takes, so it is never used after libmicrohttpd frees the connection.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

import Foundation

/// The start-up check on open files: every connection is a descriptor, so a soft `RLIMIT_NOFILE` of 1024 (a common
/// default) let about 1,000 idle connections lock every other client out long before `connectionLimit`.
enum DescriptorLimit {
    /// Descriptors kept for everything that is not a client connection: the database, logs, the listen socket.
    static let reserve = 256

    /// Raises the soft limit toward the hard one, as far as `connectionLimit` plus the reserve needs; returns a
    /// warning when the limit stays too low for `connectionLimit`, or `nil`.
    static func raise(toFit connectionLimit: Int) -> String? {
        var limits = rlimit()
        guard getrlimit(openFiles, &limits) == 0 else { return nil }
        let wanted = rlim_t(connectionLimit + reserve)
        if limits.rlim_cur < wanted {
            var raised = limits
            raised.rlim_cur = min(wanted, limits.rlim_max)
            if setrlimit(openFiles, &raised) == 0 { limits = raised }
        }
        guard limits.rlim_cur < wanted else { return nil }
        return "open-file limit is \(limits.rlim_cur) (hard limit \(limits.rlim_max)), below the \(connectionLimit) "
            + "connections allowed plus \(reserve) for the server itself; raise `ulimit -n` or lower --max-connections"
    }
}

#if os(Linux)
private let openFiles = Int32(RLIMIT_NOFILE.rawValue)
#else
private let openFiles = RLIMIT_NOFILE
#endif

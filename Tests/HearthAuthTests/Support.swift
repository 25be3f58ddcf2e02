import Foundation
import HearthCore
import HearthLog
import HearthMail
import Synchronization
import Testing

@testable import HearthAuth

/// Log lines the service wrote.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let time = Mutex<Double>(1_800_000_000)

    var clock: WallClock {
        WallClock { [self] in Timestamp(microseconds: Int64((time.withLock { $0 } * 1e6).rounded(.down))) }
    }

    func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
}

/// An accounts service on a fresh temporary data directory with cheap argon2id parameters, an outbox and a clock.
final class Fixture: Sendable {
    let directory: String
    let outbox = Outbox()
    let time = TestClock()
    let service: AccountService
    let logs = LogLines()

    init(dev: Bool = true, _ adjust: (inout AccountsConfiguration) -> Void = { _ in }) throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("hearth-auth-\(UUID().uuidString)").path
        service = try Self.open(directory: directory, dev: dev, outbox: outbox, clock: time.clock, logs: logs, adjust)
    }

    static func open(
        directory: String, dev: Bool, outbox: Outbox, clock: WallClock, logs: LogLines,
        _ adjust: (inout AccountsConfiguration) -> Void = { _ in }
    ) throws -> AccountService {
        var configuration = AccountsConfiguration(projectID: "demo-test", dataDirectory: directory)
        configuration.devMode = dev
        configuration.passwordHashIterations = 1
        configuration.passwordHashMemoryBytes = 8192
        configuration.mailFrom = "Hearth <noreply@hearth.test>"
        adjust(&configuration)
        return try AccountService(
            configuration: configuration, mailer: outbox,
            logger: Logger(level: .debug) { line in logs.append(line) }, clock: clock)
    }

    deinit {
        service.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    static let client = RequestContext(
        isAdmin: false, clientAddress: "192.0.2.1", linkBaseURL: "http://127.0.0.1:9", apiKey: "key")
    static let admin = RequestContext(isAdmin: true, clientAddress: "192.0.2.2", linkBaseURL: "http://127.0.0.1:9")

    @discardableResult
    func signUp(_ email: String, _ password: String = "secret-pw") throws -> SignInResult {
        var request = SignUpRequest()
        request.email = email
        request.password = password
        return try service.signUp(request, context: Self.client)
    }

    /// The code in the newest outbox message's link.
    func lastCode() throws -> String {
        service.flushMail()
        let text = try #require(outbox.entries.last?.message.text)
        let start = try #require(text.range(of: "oobCode="))
        return String(text[start.upperBound...].prefix { $0 != "&" && !$0.isWhitespace })
    }
}

/// The `AuthError` code `body` throws, or `nil` when it does not throw.
func authErrorCode(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as AuthError {
        return error.code
    } catch {
        return "unexpected \(error)"
    }
}

import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small blocking HTTP client for set-up work between loads: seeding documents and checking that an endpoint
/// answers as expected before wrk hammers it. Not used to measure anything.
struct SetupClient: Sendable {
    /// `http://127.0.0.1:PORT`.
    let baseURL: String
    private let session: URLSession

    init(baseURL: String) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.urlCache = nil  // as the SDK's transports: no cache, so a cancel cannot trap (see there)
        session = URLSession(configuration: configuration)
    }

    /// Sends one request and waits (at most 60 s) for the whole response.
    func send(
        _ method: String, _ path: String, json body: String? = nil, bearer: String? = nil
    ) throws -> (status: Int, body: String) {
        guard let url = URL(string: baseURL + path) else { throw BenchError("bad URL \(baseURL + path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let outcome = Mutex<Result<(Int, String), BenchError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { data, response, error in
            let result: Result<(Int, String), BenchError>
            if let error {
                result = .failure(BenchError("\(method) \(path): \(error.localizedDescription)"))
            } else if let http = response as? HTTPURLResponse {
                result = .success((http.statusCode, String(decoding: data ?? Data(), as: UTF8.self)))
            } else {
                result = .failure(BenchError("\(method) \(path): no HTTP response"))
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        task.resume()
        guard done.wait(timeout: .now() + 60) == .success else {
            task.cancel()
            throw BenchError("\(method) \(path): no response within 60 s")
        }
        guard let result = outcome.withLock({ $0 }) else { throw BenchError("\(method) \(path): no result") }
        let (status, text) = try result.get()
        return (status, text)
    }

    /// Sends one request and throws unless the status is 2xx and the body contains `expected`.
    @discardableResult
    func expect(
        _ method: String, _ path: String, json body: String? = nil, bearer: String? = nil,
        bodyContains expected: String
    ) throws
        -> String
    {
        let (status, text) = try send(method, path, json: body, bearer: bearer)
        guard (200..<300).contains(status), text.contains(expected) else {
            throw BenchError(
                "\(method) \(path) answered \(status), expected 2xx with \(expected):\n\(text.prefix(600))")
        }
        return text
    }
}

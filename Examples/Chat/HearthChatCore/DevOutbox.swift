import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The development server's outbox (`hearth serve --dev`): instead of sending mail it lists every one-time code at
/// `GET /emulator/v1/projects/{p}/oobCodes`, as the Firebase Auth emulator does. Opening a listed `oobLink` is what
/// clicking the link in the mail would do.
struct DevOutbox: Sendable {
    let serverURL: URL
    let projectID: String

    /// Opens the newest verification link sent to `email`; throws when there is none or the server refused it.
    func openVerificationLink(for email: String) async throws {
        let outbox = serverURL.appendingPathComponent("emulator/v1/projects/\(projectID)/oobCodes")
        let (data, response) = try await URLSession.shared.data(from: outbox)
        guard (response as? HTTPURLResponse)?.statusCode == 200,
            let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw ChatError.noVerificationMail }
        let codes = json["oobCodes"] as? [[String: Any]] ?? []
        guard
            let text = codes.last(where: {
                ($0["email"] as? String)?.lowercased() == email.lowercased()
                    && $0["requestType"] as? String == "VERIFY_EMAIL"
            })?["oobLink"] as? String,
            let link = URL(string: text)
        else { throw ChatError.noVerificationMail }
        let (_, answer) = try await URLSession.shared.data(from: link)
        // 400 means the code was used or expired; the reload that follows tells whether the address is verified.
        guard let status = (answer as? HTTPURLResponse)?.statusCode, status == 200 || status == 400 else {
            throw ChatError.server("The verification link did not open.")
        }
    }
}

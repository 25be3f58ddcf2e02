import Foundation
import HearthAuth
import HearthCore
import HearthHTTP

/// The pages links in mail open: `GET /emulator/action` (development mode, answering JSON as the Auth emulator
/// does, with `newPassword` in the query for resets) and `/__/auth/action` (always; small HTML pages, and for resets a
/// form that POSTs the new password, so it never travels in a URL).
extension AccountsAPI {
    func action(_ request: HTTPRequest) -> HTTPReply {
        let emulator = request.path == "/emulator/action"
        if emulator && !configuration.devMode {
            return .response(
                Responses.error(HearthError(.permissionDenied, "The emulator endpoints are only served with --dev.")))
        }
        var query: [String: String] = [:]
        for item in request.query where query[item.name] == nil { query[item.name] = item.value }
        if request.method == "POST" {
            for (name, value) in AccountsJSON.formFields(String(decoding: request.body, as: UTF8.self)) {
                query[name] = value.stringValue
            }
        } else if request.method != "GET" && request.method != "HEAD" {
            return .response(methodNotAllowed(request.method))
        }
        let fields = query
        guard let code = fields["oobCode"], !code.isEmpty else {
            return .response(page(emulator, status: 400, error: "missing oobCode query parameter"))
        }
        let context = RequestContext(
            isAdmin: false, clientAddress: request.remoteAddress, linkBaseURL: linkBase(request),
            apiKey: query["apiKey"])
        // A link can be crafted with any continueUrl: one outside the authorized domains is ignored, so this page
        // never redirects or links anywhere sendOobCode would have refused.
        let continueURL = query["continueUrl"].flatMap { url in
            url.isEmpty || !service.isAuthorizedContinueURL(url) ? nil : url
        }
        switch query["mode"].flatMap(OobRequestType.init(mode:)) {
        case .verifyEmail?, .verifyAndChangeEmail?:
            return work(request) { () throws(AuthError) in
                var update = UpdateRequest()
                update.oobCode = code
                do throws(AuthError) {
                    let result = try service.update(update, context: context)
                    if emulator, let continueURL { return redirect(continueURL) }
                    return page(
                        emulator, continueURL: continueURL,
                        success: result.newEmail == nil
                            ? "The email has been successfully verified." : "The email has been successfully changed.",
                        email: result.newEmail ?? result.user.email ?? "")
                } catch  where ["INVALID_OOB_CODE", "EXPIRED_OOB_CODE"].contains(error.code) {
                    return page(
                        emulator, status: 400,
                        error: "Your request to verify your email has expired or the link has already been used.")
                }
            }
        case .passwordReset?:
            return work(request) { () throws(AuthError) in
                do throws(AuthError) {
                    let inspected = try service.resetPassword(oobCode: code, newPassword: nil, context: context)
                    guard inspected.requestType == .passwordReset else { throw AuthError("INVALID_OOB_CODE") }
                    let newPassword = fields["newPassword"].flatMap { $0.isEmpty ? nil : $0 }
                    if emulator {
                        guard let newPassword else {
                            return page(true, status: 400, error: "missing newPassword query parameter")
                        }
                        guard newPassword != "NEW_PASSWORD_HERE" else {
                            return page(
                                true, status: 400, error: "newPassword must be something other than 'NEW_PASSWORD_HERE'"
                            )
                        }
                    }
                    guard let newPassword, emulator || request.method == "POST" else {
                        return resetForm(
                            code: code, apiKey: fields["apiKey"], continueURL: continueURL, email: inspected.email)
                    }
                    let result = try service.resetPassword(oobCode: code, newPassword: newPassword, context: context)
                    if emulator, let continueURL { return redirect(continueURL) }
                    return page(
                        emulator, continueURL: continueURL, success: "The password has been successfully updated.",
                        email: result.email)
                } catch  where ["INVALID_OOB_CODE", "EXPIRED_OOB_CODE"].contains(error.code) {
                    return page(
                        emulator, status: 400,
                        error: "Your request to reset your password has expired or the link has already been used.")
                }
            }
        case nil:
            return .response(page(emulator, status: 400, error: "Invalid mode"))
        }
    }

    func redirect(_ url: String) -> HTTPResponse {
        HTTPResponse(status: 303, headers: [("Location", url)], body: [])
    }

    /// The emulator's `{"authEmulator":{…}}` JSON, or a small HTML page.
    /// Development mode's `/emulator/action` redirects to `continueUrl` as the emulator does; Hearth's own page does
    /// not redirect by itself — whoever asked for the code chose the URL — but offers it as a link, and only an
    /// `http(s)` one, so a `javascript:` URL can never run in the page.
    private func page(
        _ emulator: Bool, status: Int = 200, continueURL: String? = nil, success: String? = nil, error: String? = nil,
        email: String? = nil
    ) -> HTTPResponse {
        if emulator {
            var inner: [String: JSONValue] = [:]
            if let success { inner["success"] = .string(success) }
            if let error { inner["error"] = .string(error) }
            if let email { inner["email"] = .string(email) }
            return AccountsJSON.response(["authEmulator": .object(inner)], status: status)
        }
        var body = "<h1>\((success ?? error ?? "").htmlEscaped)</h1>"
        if let continueURL, continueURL.hasPrefix("https://") || continueURL.hasPrefix("http://") {
            body += "<p><a href=\"\(continueURL.htmlEscaped)\" rel=\"noreferrer\">Continue</a></p>"
        }
        return html(body, status: status)
    }

    private func resetForm(code: String, apiKey: String?, continueURL: String?, email: String) -> HTTPResponse {
        var hidden =
            "<input type=\"hidden\" name=\"mode\" value=\"resetPassword\"><input type=\"hidden\" name=\"oobCode\" value=\"\(code.htmlEscaped)\">"
        if let apiKey { hidden += "<input type=\"hidden\" name=\"apiKey\" value=\"\(apiKey.htmlEscaped)\">" }
        if let continueURL {
            hidden += "<input type=\"hidden\" name=\"continueUrl\" value=\"\(continueURL.htmlEscaped)\">"
        }
        return html(
            """
            <h1>Reset your password</h1><p>for \(email.htmlEscaped)</p>
            <form method="post" action="/__/auth/action">\(hidden)
            <input type="password" name="newPassword" minlength="6" required autocomplete="new-password">
            <button type="submit">Save</button></form>
            """)
    }

    func html(_ body: String, status: Int = 200) -> HTTPResponse {
        var response = Responses.text(
            "<!doctype html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>\(configuration.accounts.appName)</title></head><body>\(body)</body></html>",
            status: status, contentType: "text/html; charset=utf-8")
        // The page holds a one-time code: keep it out of caches and other sites' frames.
        response.headers.add(name: "Cache-Control", value: "no-store")
        response.headers.add(name: "X-Frame-Options", value: "DENY")
        response.headers.add(name: "Referrer-Policy", value: "no-referrer")
        return response
    }
}

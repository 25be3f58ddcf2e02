import HearthAuth
import HearthCore
import HearthHTTP

/// `/emulator/auth/handler`: development mode's provider picker. `GET` lists the provider's accounts and a form for
/// a new one; `POST` (a form) sends the browser back to the sign-in's `continueUri` with a code.
extension AccountsAPI {
    func devPicker(_ request: HTTPRequest) -> HTTPReply {
        guard configuration.devMode else {
            return .response(html("<h1>The provider picker is only served with --dev.</h1>", status: 404))
        }
        return work(request) { () throws(AuthError) in
            let form =
                request.method == "POST"
                ? AccountsJSON.formFields(String(decoding: request.body, as: UTF8.self)) : [:]
            let fields = Fields(object: form)
            let sessionID = fields.string("sessionId") ?? request.queryValue("sessionId") ?? ""
            guard let picker = try service.devPicker(sessionID: sessionID) else {
                return html("<h1>This sign-in is unknown, used or expired.</h1>", status: 400)
            }
            if request.method == "POST" {
                let url = try service.completeDevPicker(
                    sessionID: sessionID, rawID: fields.string("rawId"), email: fields.string("email"),
                    displayName: fields.string("displayName"))
                return redirect(url)
            }
            guard request.method == "GET" else { return methodNotAllowed(request.method) }
            return html(Self.pickerPage(picker.providerID, picker.accounts, sessionID: sessionID))
        }
    }

    static func pickerPage(_ providerID: String, _ accounts: [ProviderLink], sessionID: String) -> String {
        let session = "<input type=\"hidden\" name=\"sessionId\" value=\"\(sessionID.htmlEscaped)\">"
        var page = "<h1>Sign in with \(providerID.htmlEscaped)</h1><p>Development mode: pick an account.</p>"
        for account in accounts {
            let label = [account.displayName, account.email].compactMap { $0 }.joined(separator: " · ")
            page += """
                <form method="post" action="/emulator/auth/handler">\(session)\
                <input type="hidden" name="rawId" value="\(account.rawID.htmlEscaped)">\
                <button type="submit">\((label.isEmpty ? account.rawID : label).htmlEscaped)</button></form>
                """
        }
        page += """
            <h2>Add a new account</h2><form method="post" action="/emulator/auth/handler">\(session)
            <label>Email <input type="email" name="email" autocomplete="off"></label>
            <label>Display name <input type="text" name="displayName" autocomplete="off"></label>
            <button type="submit">Sign in with \(providerID.htmlEscaped)</button></form>
            """
        return page
    }
}

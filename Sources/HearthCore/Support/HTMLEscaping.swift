extension String {
    /// The text with `&`, `<`, `>`, `"` and `'` replaced by their character references, so it reads as text inside
    /// HTML element content and quoted attribute values (mail templates, the action page, the console's page).
    public var htmlEscaped: String {
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for character in self {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

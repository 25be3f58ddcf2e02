/// Turns rules source text into tokens, one at a time, on demand.
///
/// On demand because path literals (`/users/$(uid)`), match patterns (`/users/{id=**}`) and regular expressions are
/// not token sequences: the parser asks the lexer to scan them raw from the character after the `/` it just saw.
struct Lexer {
    private let scalars: [Unicode.Scalar]
    private(set) var index = 0
    private var line = 1
    private var column = 1

    init(_ source: String) {
        scalars = Array(source.unicodeScalars)
    }

    /// The location of the next unread character.
    var location: SourceLocation { SourceLocation(line: line, column: column) }

    /// The next unread character, if any.
    var peekScalar: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    /// The character after the next one, if any.
    var peekSecondScalar: Unicode.Scalar? { index + 1 < scalars.count ? scalars[index + 1] : nil }

    /// Consumes one character, keeping line and column right.
    mutating func skipScalar() {
        guard index < scalars.count else { return }
        if scalars[index] == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
        index += 1
    }

    /// Reads the next token, skipping white space and comments.
    mutating func next() throws(RulesSyntaxError) -> Token {
        try skipTrivia()
        let start = location
        guard let c = peekScalar else { return Token(kind: .end, location: start) }
        if Self.isIdentifierStart(c) {
            var text = ""
            while let d = peekScalar, Self.isIdentifierPart(d) {
                text.unicodeScalars.append(d)
                skipScalar()
            }
            return Token(kind: .identifier(text), location: start)
        }
        if Self.isDigit(c) || (c == "." && peekSecondScalar.map(Self.isDigit) == true) {
            return try number(start)
        }
        if c == "'" || c == "\"" { return try string(quote: c, start) }
        for symbol in Self.symbols where matches(symbol) {
            for _ in symbol.unicodeScalars { skipScalar() }
            return Token(kind: .symbol(symbol), location: start)
        }
        throw RulesSyntaxError("unexpected character '\(c)'", at: start)
    }

    /// Longest first, so `===` wins over `==` and `==` over `=`.
    private static let symbols = [
        "===", "!==", "==", "!=", "<=", ">=", "&&", "||", "{", "}", "(", ")", "[", "]", ";", ",", ".", ":", "?", "=",
        "<", ">", "!", "+", "-", "*", "/", "%",
    ]

    private func matches(_ symbol: String) -> Bool {
        var i = index
        for s in symbol.unicodeScalars {
            guard i < scalars.count, scalars[i] == s else { return false }
            i += 1
        }
        return true
    }

    private mutating func skipTrivia() throws(RulesSyntaxError) {
        while let c = peekScalar {
            if c == " " || c == "\t" || c == "\n" || c == "\r" {
                skipScalar()
            } else if c == "/" && peekSecondScalar == "/" {
                while let d = peekScalar, d != "\n" { skipScalar() }
            } else if c == "/" && peekSecondScalar == "*" {
                let start = location
                skipScalar()
                skipScalar()
                while true {
                    guard let d = peekScalar else { throw RulesSyntaxError("unterminated comment", at: start) }
                    if d == "*" && peekSecondScalar == "/" {
                        skipScalar()
                        skipScalar()
                        break
                    }
                    skipScalar()
                }
            } else {
                return
            }
        }
    }

    private mutating func number(_ start: SourceLocation) throws(RulesSyntaxError) -> Token {
        var text = ""
        var isFloat = false
        while let c = peekScalar {
            if Self.isDigit(c) {
                text.unicodeScalars.append(c)
            } else if c == "." && !isFloat && peekSecondScalar.map(Self.isDigit) == true {
                isFloat = true
                text.unicodeScalars.append(c)
            } else if c == "e" || c == "E" {
                isFloat = true
                text.unicodeScalars.append(c)
                skipScalar()
                if let sign = peekScalar, sign == "+" || sign == "-" {
                    text.unicodeScalars.append(sign)
                    skipScalar()
                }
                continue
            } else {
                break
            }
            skipScalar()
        }
        if isFloat {
            guard let value = Double(text) else { throw RulesSyntaxError("malformed number '\(text)'", at: start) }
            return Token(kind: .float(value), location: start)
        }
        guard let value = Int64(text) else { throw RulesSyntaxError("integer '\(text)' out of range", at: start) }
        return Token(kind: .integer(value), location: start)
    }

    private mutating func string(quote: Unicode.Scalar, _ start: SourceLocation) throws(RulesSyntaxError) -> Token {
        skipScalar()
        var text = ""
        while true {
            guard let c = peekScalar, c != "\n" else { throw RulesSyntaxError("unterminated string", at: start) }
            skipScalar()
            if c == quote { break }
            if c != "\\" {
                text.unicodeScalars.append(c)
                continue
            }
            let escapeLocation = location
            guard let e = peekScalar else { throw RulesSyntaxError("unterminated string", at: start) }
            skipScalar()
            switch e {
            case "n": text += "\n"
            case "t": text += "\t"
            case "r": text += "\r"
            case "0": text += "\0"
            case "\\", "'", "\"", "/", ".": text.unicodeScalars.append(e)
            case "u":
                var code: UInt32 = 0
                for _ in 0..<4 {
                    guard let h = peekScalar, let digit = Self.hexValue(h) else {
                        throw RulesSyntaxError("malformed \\u escape", at: escapeLocation)
                    }
                    code = code * 16 + digit
                    skipScalar()
                }
                guard let scalar = Unicode.Scalar(code) else {
                    throw RulesSyntaxError("invalid \\u escape", at: escapeLocation)
                }
                text.unicodeScalars.append(scalar)
            default:
                // Regular expressions written as strings keep their backslashes (`'\\d+'` and `'\d+'` both work in
                // Firestore rules files seen in the wild).
                text.unicodeScalars.append("\\")
                text.unicodeScalars.append(e)
            }
        }
        return Token(kind: .string(text), location: start)
    }

    /// Scans one raw path segment (`users`, `(default)`, `my-doc.v2`), stopping at `/`, white space, `{`, `$(` or a
    /// delimiter. Parentheses are taken only when balanced, so `get(/a/b)` keeps its closing parenthesis.
    mutating func scanPathSegment() -> String {
        var text = ""
        while let c = peekScalar {
            if c == "(" {
                var j = index + 1
                while j < scalars.count, scalars[j] != ")", scalars[j] != "/", !Self.isSpace(scalars[j]) { j += 1 }
                guard j < scalars.count, scalars[j] == ")" else { break }
                while index <= j {
                    text.unicodeScalars.append(scalars[index])
                    skipScalar()
                }
                continue
            }
            guard Self.isPathCharacter(c) else { break }
            if c == "$" && peekSecondScalar == "(" { break }
            text.unicodeScalars.append(c)
            skipScalar()
        }
        return text
    }

    /// Scans a `/regex/flags` literal body after its opening slash (Realtime Database rules).
    mutating func scanRegex(start: SourceLocation) throws(RulesSyntaxError) -> String {
        var text = ""
        while true {
            guard let c = peekScalar, c != "\n" else {
                throw RulesSyntaxError("unterminated regular expression", at: start)
            }
            skipScalar()
            if c == "/" { break }
            text.unicodeScalars.append(c)
            if c == "\\", let e = peekScalar {
                text.unicodeScalars.append(e)
                skipScalar()
            }
        }
        while let f = peekScalar, f == "i" || f == "g" || f == "m" { skipScalar() }
        return text
    }

    /// Scans an identifier directly (match-pattern variable names).
    mutating func scanIdentifier() -> String {
        var text = ""
        while let c = peekScalar, Self.isIdentifierPart(c) {
            text.unicodeScalars.append(c)
            skipScalar()
        }
        return text
    }

    static func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }
    static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }
    static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" || c == "$"
    }
    static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool { isIdentifierStart(c) || isDigit(c) }
    static func isPathCharacter(_ c: Unicode.Scalar) -> Bool {
        isIdentifierPart(c) || c == "-" || c == "." || c == "~" || c == "%" || c == "@" || c == "+"
            || c.value > 127
    }
    static func hexValue(_ c: Unicode.Scalar) -> UInt32? {
        switch c {
        case "0"..."9": return c.value - 48
        case "a"..."f": return c.value - 87
        case "A"..."F": return c.value - 55
        default: return nil
        }
    }
}

import Foundation

/// How the reports write their figures, so every section reads the same.
enum ReportFormat {
    /// 12345.6 → "12,346"; a missing or non-finite value → "—".
    static func rate(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "—" }
        let digits = String(Int(value.rounded()))
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return grouped
    }

    /// Milliseconds with two decimals below 10 ms, one above; a missing value → "—".
    static func ms(_ value: Double?) -> String {
        guard let value else { return "—" }
        return value < 10 ? String(format: "%.2f ms", value) : String(format: "%.1f ms", value)
    }
}

extension ReportFormat {
    /// Prints `markdown` and, with `out`, writes it there too (making its directory); `false` after saying why when
    /// the file cannot be written. `command` names the subcommand in the message (`hearth-bench files`).
    static func publish(_ markdown: String, to out: String?, command: String) -> Bool {
        print(markdown, terminator: "")
        guard let out else { return true }
        do {
            let url = URL(fileURLWithPath: out)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(markdown.utf8).write(to: url)
            log("report written to \(out)")
            return true
        } catch {
            FileHandle.standardError.write(Data("\(command): cannot write \(out): \(error)\n".utf8))
            return false
        }
    }
}

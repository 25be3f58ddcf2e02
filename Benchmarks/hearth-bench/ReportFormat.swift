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

import Foundation
import SimpleDataLogs

/// One figure of the results: a JSON line and a table row.
struct Figure: Sendable {
    var name: String
    var value: Double
    var unit: String
    /// The same quantity for the baseline run in the same process, when there is one.
    var baseline: Double?
    /// `value / baseline` (or the inverse for costs, see ``higherIsBetter``), when there is a baseline.
    var ratio: Double?
    var runs: Int
    var min: Double
    var max: Double
    /// The target from issue 7, as text, e.g. "<= 250"; judged only in the table, never in the exit code.
    var target: String?
    /// Whether the target was met, when there is one.
    var met: Bool?
    var note: String?

    init(
        _ name: String, _ value: Double, unit: String, baseline: Double? = nil, ratio: Double? = nil,
        runs: Int = 1, min: Double? = nil, max: Double? = nil, target: String? = nil, met: Bool? = nil, note: String? = nil
    ) {
        self.name = name
        self.value = value
        self.unit = unit
        self.baseline = baseline
        self.ratio = ratio ?? baseline.map { $0 == 0 ? .nan : value / $0 }
        self.runs = runs
        self.min = min ?? value
        self.max = max ?? value
        self.target = target
        self.met = met
        self.note = note
    }

    /// A figure from several runs: the value is their median.
    static func ofRuns(
        _ name: String, _ values: [Double], unit: String, baseline: Double? = nil,
        target: String? = nil, met: ((Double) -> Bool)? = nil, note: String? = nil
    ) -> Figure {
        let value = Measure.median(values)
        return Figure(
            name, value, unit: unit, baseline: baseline, runs: values.count,
            min: values.min() ?? value, max: values.max() ?? value, target: target, met: met.map { $0(value) }, note: note
        )
    }

    var jsonLine: String {
        func number(_ value: Double?) -> String {
            guard let value, value.isFinite else { return "null" }
            if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
            return String(format: "%.4g", value)
        }
        func string(_ value: String?) -> String {
            guard let value else { return "null" }
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\"\(escaped)\""
        }
        var fields = [
            "\"name\":\(string(name))", "\"value\":\(number(value))", "\"unit\":\(string(unit))",
            "\"baseline\":\(number(baseline))", "\"ratio\":\(number(ratio))", "\"runs\":\(runs)",
            "\"min\":\(number(min))", "\"max\":\(number(max))",
        ]
        if let target { fields.append("\"target\":\(string(target))") }
        if let met { fields.append("\"met\":\(met)") }
        if let note { fields.append("\"note\":\(string(note))") }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

/// Collects figures, prints each JSON line as it comes, and a table at the end.
final class Report: Sendable {
    private let figures = Locked<[Figure]>([])
    /// Problems that make the process exit non-zero: something broken, never a slow figure.
    private let problems = Locked<[String]>([])

    func add(_ figure: Figure) {
        figures.withLock { $0.append(figure) }
        writeStandardOutput(figure.jsonLine + "\n")
    }

    func add(_ list: [Figure]) { list.forEach(add) }

    /// Records something broken (for example events lost); the process will exit 1.
    func broken(_ message: String) {
        problems.withLock { $0.append(message) }
        FileHandle.standardError.write(Data("BROKEN: \(message)\n".utf8))
    }

    var brokenCount: Int { problems.withLock { $0.count } }

    func note(_ text: String) {
        FileHandle.standardError.write(Data("# \(text)\n".utf8))
    }

    /// The human table: one row per figure.
    func table() -> String {
        let all = figures.withLock { $0 }
        func format(_ value: Double?) -> String {
            guard let value, value.isFinite else { return "-" }
            let magnitude = abs(value)
            if magnitude >= 100 || value == value.rounded() { return String(format: "%.0f", value) }
            if magnitude >= 10 { return String(format: "%.1f", value) }
            return String(format: "%.2f", value)
        }
        let header = ["figure", "value", "unit", "baseline", "ratio", "runs", "min", "max", "target", "met"]
        var rows = [header]
        for figure in all {
            rows.append([
                figure.name, format(figure.value), figure.unit, format(figure.baseline), figure.ratio.map { String(format: "%.2f", $0) } ?? "-",
                String(figure.runs), format(figure.min), format(figure.max), figure.target ?? "",
                figure.met.map { $0 ? "yes" : "NO" } ?? "",
            ])
        }
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = Swift.max(widths[index], cell.count) } }
        func line(_ row: [String]) -> String {
            "| " + row.enumerated().map { index, cell in
                index == 0 || index == 2 || index == 8 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: " | ") + " |"
        }
        var text = line(rows[0]) + "\n"
        text += "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|\n"
        for row in rows.dropFirst() { text += line(row) + "\n" }
        return text
    }
}

/// Writes to standard output at once, unbuffered (scripts read the JSON lines as the run goes on).
func writeStandardOutput(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

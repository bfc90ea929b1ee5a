import Foundation

/// Reads a `Retry-After` header (RFC 9110 §10.2.3) into a delay.
///
/// Both forms: delay-seconds (`120`) and an HTTP-date, relative to the wall clock's `now`. For
/// the date, the preferred IMF-fixdate (`Wed, 02 Dec 2026 10:00:00 GMT`) and the two obsolete
/// forms RFC 9110 §5.6.7 asks recipients to accept: RFC 850 (`Wednesday, 02-Dec-26 10:00:00 GMT`)
/// and asctime (`Wed Dec  2 10:00:00 2026`). Parsed by hand, not with `DateFormatter`, so the
/// result cannot depend on the device's locale or calendar.
///
/// The value is what the server asked for; ``Backoff`` caps it at 1 hour.
enum RetryAfter {
    /// Parses a header value.
    /// - Parameters:
    ///   - value: The header's value.
    ///   - now: The wall clock's current time, for an HTTP-date.
    /// - Returns: The delay (zero for a date in the past), or `nil` when the value is neither form.
    static func parse(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        if trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Absurdly long numbers are still "a long time", not garbage; clamp them.
            guard let seconds = Int64(trimmed) else { return .seconds(Int64.max / 1_000_000_000) }
            return .seconds(seconds)
        }
        guard let date = httpDate(trimmed, now: now) else { return nil }
        let interval = date.timeIntervalSince(now)
        return interval > 0 ? .milliseconds(Int64((interval * 1_000).rounded(.up))) : .zero
    }

    /// Parses an HTTP-date in any of its three forms.
    /// - Parameters:
    ///   - text: The date, trimmed.
    ///   - now: For the two-digit year of the RFC 850 form.
    /// - Returns: The date, or `nil`.
    static func httpDate(_ text: String, now: Date) -> Date? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        switch words.count {
        case 6:
            // IMF-fixdate: Wed, 02 Dec 2026 10:00:00 GMT
            guard words[0].hasSuffix(","), shortDayNames.contains(String(words[0].dropLast())), words[5] == "GMT",
                  words[1].count == 2, let day = Int(words[1]), let month = month(words[2]),
                  words[3].count == 4, let year = Int(words[3]) else { return nil }
            return date(year: year, month: month, day: day, time: words[4])
        case 4:
            // RFC 850: Wednesday, 02-Dec-26 10:00:00 GMT
            guard words[0].hasSuffix(","), longDayNames.contains(String(words[0].dropLast())), words[3] == "GMT" else { return nil }
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[0].count == 2, let day = Int(parts[0]), let month = month(parts[1]),
                  parts[2].count == 2, let shortYear = Int(parts[2]) else { return nil }
            return date(year: fullYear(twoDigits: shortYear, now: now), month: month, day: day, time: words[2])
        case 5:
            // asctime: Wed Dec  2 10:00:00 2026 (the day is space-padded, hence the empty words dropped)
            guard shortDayNames.contains(words[0]), let month = month(words[1]), (1...2).contains(words[2].count),
                  let day = Int(words[2]), words[4].count == 4, let year = Int(words[4]) else { return nil }
            return date(year: year, month: month, day: day, time: words[3])
        default:
            return nil
        }
    }

    private static let shortDayNames: Set<String> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDayNames: Set<String> = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func month(_ name: String) -> Int? {
        monthNames.firstIndex(of: name).map { $0 + 1 }
    }

    /// RFC 9110: a two-digit year that would be more than 50 years in the future is the most
    /// recent past year with those last two digits.
    private static func fullYear(twoDigits: Int, now: Date) -> Int {
        let currentYear = civil(fromDays: Int(floor(now.timeIntervalSince1970 / 86_400))).year
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        return year
    }

    /// A UTC date from its fields and an `HH:MM:SS` time; `nil` when any is out of range.
    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let fields = time.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, fields.allSatisfy({ $0.count == 2 }),
              let hour = Int(fields[0]), let minute = Int(fields[1]), let second = Int(fields[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of ``daysFromCivil(year:month:day:)``, for the current year.
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

import Foundation

/// Dates as literals: RFC 3339 in UTC, `2026-11-21T09:30:00.1234567Z`, with as many
/// fractional digits as it takes to read back the very same `Date`.
///
/// A `Date` is a `Double` of seconds since 2001-01-01T00:00:00Z. Its shortest text that reads
/// back bit for bit (`description`) is cut into whole seconds and a fraction digit by digit, and
/// the calendar fields come from the whole seconds by integer arithmetic, so nothing on the way
/// rounds. Reading builds the same decimal again from the fields and the fraction and lets
/// `Double(_:)` round it, which gives the same `Double`. RFC 3339 has four-digit years: a date
/// outside the years 0000-9999 is refused when it is saved, rather than written as text that
/// does not read back. (`-0.0` is written as 0 and reads back as `+0.0`: the same instant, `==`,
/// which no RFC 3339 text tells apart.)
extension Date: LiteralScalar {
  var literal: String {
    get throws(InvalidLiteral) {
      let interval = timeIntervalSinceReferenceDate
      guard let seconds = DecimalSeconds(interval) else {
        throw InvalidLiteral(
          message: "\(interval) seconds from 2001-01-01 is outside 0000-9999, the years an "
            + "RFC 3339 date can hold")
      }
      let time = UTCTime(secondsSinceReferenceDate: seconds.whole)
      guard (0...9999).contains(time.year) else {
        throw InvalidLiteral(
          message: "the year \(time.year) is outside 0000-9999, the years an RFC 3339 date can "
            + "hold")
      }
      let text = time.text + (seconds.fraction.isEmpty ? "" : "." + seconds.fraction) + "Z"
      // The arithmetic above is meant to make this hold; should it not, a date that would read
      // back as another is refused rather than written.
      let readBack: Date
      do {
        readBack = try Date.value(of: text)
      } catch {
        throw InvalidLiteral(message: "\(interval) would be written as \(text): \(error.message)")
      }
      guard readBack.timeIntervalSinceReferenceDate == interval else {
        throw InvalidLiteral(
          message: "\(interval) would be written as \(text), which reads back as "
            + "\(readBack.timeIntervalSinceReferenceDate)")
      }
      return text
    }
  }

  /// Reads an RFC 3339 date: UTC (`Z`) or an offset (`+02:00`), any number of fractional
  /// digits, a leap second (`:60`, the next minute's first second).
  static func value(of literal: String) throws(InvalidLiteral) -> Date {
    let invalid = InvalidLiteral(
      message: "expected an RFC 3339 date such as 2026-11-21T09:30:00.5Z, found \"\(literal)\"")
    var reader = ASCIIReader(literal)
    // ASCII digits only: `Int("٢٠٢٦")` is nil, but a reader of the file would take it for a year.
    guard let year = reader.number(digits: 4), reader.take("-"),
      let month = reader.number(digits: 2, in: 1...12), reader.take("-"),
      let day = reader.number(digits: 2, in: 1...UTCTime.days(inMonth: month, of: year)),
      reader.take("T") || reader.take("t"),
      let hour = reader.number(digits: 2, in: 0...23), reader.take(":"),
      let minute = reader.number(digits: 2, in: 0...59), reader.take(":"),
      let second = reader.number(digits: 2, in: 0...60)
    else { throw invalid }
    var fraction = ""
    if reader.take(".") {
      fraction = reader.digits()
      guard !fraction.isEmpty else { throw invalid }
    }
    var offset = 0
    if !(reader.take("Z") || reader.take("z")) {
      let sign = reader.take("+") ? 1 : reader.take("-") ? -1 : 0
      guard sign != 0, let hours = reader.number(digits: 2, in: 0...23), reader.take(":"),
        let minutes = reader.number(digits: 2, in: 0...59)
      else { throw invalid }
      offset = sign * (hours * 3600 + minutes * 60)
    }
    guard reader.isAtEnd else { throw invalid }
    let time = UTCTime(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    let seconds = DecimalSeconds(whole: time.secondsSinceReferenceDate - offset, fraction: fraction)
    guard let interval = seconds.interval else { throw invalid }
    return Date(timeIntervalSinceReferenceDate: interval)
  }

  static var isText: Bool { true }
}

/// A number of seconds as an exact decimal: whole seconds, rounded down (towards the past, also
/// before 2001), and the digits of the fraction of a second after them.
struct DecimalSeconds: Equatable {
  let whole: Int
  /// ASCII digits, without trailing zeros: `"5"` is half a second.
  let fraction: String

  init(whole: Int, fraction: String) {
    self.whole = whole
    var digits = Substring(fraction)
    while digits.last == "0" { digits.removeLast() }
    self.fraction = String(digits)
  }

  /// The exact value of `interval`'s shortest round-trip text (`1e-07`, `-978306199.876544`);
  /// `nil` for an infinity, a NaN, or more whole seconds than 15 digits hold (some 30 million
  /// years).
  init?(_ interval: Double) {
    guard interval.isFinite else { return nil }
    var text = Substring(interval.description)
    let isNegative = text.first == "-"
    if isNegative { text.removeFirst() }
    var exponent = 0
    if let mark = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
      guard let value = Int(text[text.index(after: mark)...]) else { return nil }
      exponent = value
      text = text[..<mark]
    }
    let point = text.firstIndex(of: ".")
    let integer = point.map { text[..<$0] } ?? text
    let digits = String(integer) + (point.map { String(text[text.index(after: $0)...]) } ?? "")
    // Where the decimal point falls in `digits` once the exponent is applied.
    let split = integer.count + exponent
    guard split <= 15, digits.allSatisfy(\.isASCIIDigitCharacter) else { return nil }
    let wholeDigits: String
    let fraction: String
    if split <= 0 {
      (wholeDigits, fraction) = ("0", String(repeating: "0", count: -split) + digits)
    } else if split >= digits.count {
      (wholeDigits, fraction) = (digits + String(repeating: "0", count: split - digits.count), "")
    } else {
      let index = digits.index(digits.startIndex, offsetBy: split)
      (wholeDigits, fraction) = (String(digits[..<index]), String(digits[index...]))
    }
    guard let magnitude = Int(wholeDigits) else { return nil }
    let positive = DecimalSeconds(whole: magnitude, fraction: fraction)
    if !isNegative {
      self = positive
    } else if positive.fraction.isEmpty {
      self.init(whole: -magnitude, fraction: "")
    } else {
      // -2.25 is 3 seconds before zero, then 0.75 of a second: -3 + 0.75.
      self.init(whole: -magnitude - 1, fraction: Self.complement(positive.fraction))
    }
  }

  /// The `Double` nearest to the decimal; `nil` for one no `Double` holds.
  var interval: Double? {
    guard !fraction.isEmpty else { return Double(exactly: whole) }
    // Written as the number it is, -0.75 rather than -1 + 0.25, so that `Double(_:)` rounds
    // the value itself once.
    let text =
      whole >= 0 ? "\(whole).\(fraction)" : "-\(-(whole + 1)).\(Self.complement(fraction))"
    return Double(text)
  }

  /// The digits of 1 minus the fraction `digits` (ASCII digits, the last not 0): `"25"` gives
  /// `"75"`, `"001"` gives `"999"`. Its own inverse, and never ends in 0 either.
  static func complement(_ digits: String) -> String {
    var bytes = Array(digits.utf8)
    guard !bytes.isEmpty else { return "" }
    // 9 - d for each digit, and one more for the last: 10^n - digits, with no carry since the
    // last digit is not 0.
    for index in bytes.indices {
      bytes[index] = UInt8(ascii: "9") - bytes[index] + UInt8(ascii: "0")
    }
    bytes[bytes.count - 1] += 1
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// A UTC time to the second in the proleptic Gregorian calendar, as RFC 3339 writes it; days
/// are counted with Howard Hinnant's `days_from_civil` and `civil_from_days`.
struct UTCTime {
  let year: Int
  let month: Int
  let day: Int
  let hour: Int
  let minute: Int
  let second: Int

  /// Days from 1970-01-01 to 2001-01-01, the date `Date` counts from.
  private static let referenceDay = 11_323

  init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
    (self.year, self.month, self.day) = (year, month, day)
    (self.hour, self.minute, self.second) = (hour, minute, second)
  }

  /// The time `seconds` after 2001-01-01T00:00:00Z (any `Int`: its days are far from
  /// overflowing).
  init(secondsSinceReferenceDate seconds: Int) {
    let (days, remainder) = Self.floorDivision(seconds, 86_400)
    let shifted = days + Self.referenceDay + 719_468
    // From civil_from_days: eras of 400 years starting on 0000-03-01.
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra =
      (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthFromMarch = (5 * dayOfYear + 2) / 153
    let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
    self.init(
      year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month,
      day: dayOfYear - (153 * monthFromMarch + 2) / 5 + 1, hour: remainder / 3_600,
      minute: remainder % 3_600 / 60, second: remainder % 60)
  }

  /// Seconds from 2001-01-01T00:00:00Z; a leap second (`:60`) is the next minute's first.
  var secondsSinceReferenceDate: Int {
    // From days_from_civil: the year starts in March, so that February's length comes last.
    let marchYear = month <= 2 ? year - 1 : year
    let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
    let yearOfEra = marchYear - era * 400
    let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468 - Self.referenceDay
    return days * 86_400 + hour * 3_600 + minute * 60 + second
  }

  /// `YYYY-MM-DDTHH:MM:SS`, for a year from 0 to 9999.
  var text: String {
    func padded(_ value: Int, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(hour, 2)):"
      + "\(padded(minute, 2)):\(padded(second, 2))"
  }

  /// The days of `month` (1 to 12) in `year`.
  static func days(inMonth month: Int, of year: Int) -> Int {
    switch month {
    case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// The quotient rounded down and the remainder that goes with it (from 0 to `divisor - 1`).
  private static func floorDivision(_ value: Int, _ divisor: Int) -> (Int, Int) {
    let remainder = value % divisor
    return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
  }
}

/// Reads an ASCII literal field by field.
private struct ASCIIReader {
  private let bytes: [UInt8]
  private var index = 0

  init(_ text: String) { bytes = Array(text.utf8) }

  var isAtEnd: Bool { index == bytes.count }

  /// Takes `character` if it comes next.
  mutating func take(_ character: Character) -> Bool {
    guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else {
      return false
    }
    index += 1
    return true
  }

  /// Takes the ASCII digits that come next.
  mutating func digits() -> String {
    let start = index
    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      index += 1
    }
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  /// Takes exactly `digits` ASCII digits as a number, if there are that many and it is in
  /// `range`.
  mutating func number(digits count: Int, in range: ClosedRange<Int> = 0...Int.max) -> Int? {
    guard index + count <= bytes.count else { return nil }
    var value = 0
    for byte in bytes[index..<index + count] {
      guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
      value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    guard range.contains(value) else { return nil }
    index += count
    return value
  }
}

extension Character {
  /// `0` to `9`, and no other digit: `description` writes only these.
  fileprivate var isASCIIDigitCharacter: Bool { isASCII && isWholeNumber }
}

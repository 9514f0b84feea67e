import Foundation

/// Why a stored literal is not a value of the key's type.
struct InvalidLiteral: Error {
  let message: String
}

/// A type stored as one literal in a defaults file: `true`, `42`, `0.1`, `https://…`.
protocol DefaultsScalar: Sendable {
  /// The literal written to the file (before INI quoting).
  var literal: String { get }
  /// The value of a literal read from the file.
  static func value(of literal: String) throws(InvalidLiteral) -> Self
  /// Whether the literal is text, written as a JSON string inside an array.
  static var isText: Bool { get }
}

extension DefaultsScalar {
  static var isText: Bool { false }
}

extension Bool: DefaultsScalar {
  var literal: String { self ? "true" : "false" }

  static func value(of literal: String) throws(InvalidLiteral) -> Bool {
    switch literal.lowercased() {
    case "true", "yes", "on", "1": return true
    case "false", "no", "off", "0": return false
    default: throw InvalidLiteral(message: "expected true or false, found \"\(literal)\"")
    }
  }
}

extension DefaultsScalar where Self: FixedWidthInteger {
  var literal: String { String(self) }

  static func value(of literal: String) throws(InvalidLiteral) -> Self {
    guard let value = Self(literal, radix: 10) else {
      throw InvalidLiteral(
        message: "expected a whole number from \(Self.min) to \(Self.max), found \"\(literal)\"")
    }
    return value
  }
}

extension Int: DefaultsScalar {}
extension Int8: DefaultsScalar {}
extension Int16: DefaultsScalar {}
extension Int32: DefaultsScalar {}
extension Int64: DefaultsScalar {}
extension UInt: DefaultsScalar {}
extension UInt8: DefaultsScalar {}
extension UInt16: DefaultsScalar {}
extension UInt32: DefaultsScalar {}
extension UInt64: DefaultsScalar {}

extension DefaultsScalar where Self: BinaryFloatingPoint & LosslessStringConvertible {
  /// The shortest text that reads back bit for bit (`nan`, `inf`, `-inf` included).
  var literal: String { description }

  static func value(of literal: String) throws(InvalidLiteral) -> Self {
    guard let value = Self(literal) else {
      throw InvalidLiteral(
        message: "expected a number such as 0.5, inf or nan, found \"\(literal)\"")
    }
    return value
  }
}

extension Double: DefaultsScalar {}
extension Float: DefaultsScalar {}

extension String: DefaultsScalar {
  var literal: String { self }
  static func value(of literal: String) throws(InvalidLiteral) -> String { literal }
  static var isText: Bool { true }
}

extension URL: DefaultsScalar {
  /// The full absolute string: scheme, host, query and fragment are all kept.
  var literal: String { absoluteString }

  static func value(of literal: String) throws(InvalidLiteral) -> URL {
    guard let url = URL(string: literal), url.scheme != nil else {
      throw InvalidLiteral(message: "expected an absolute URL, found \"\(literal)\"")
    }
    return url
  }

  static var isText: Bool { true }
}

extension Data: DefaultsScalar {
  var literal: String { "base64:" + base64EncodedString() }

  static func value(of literal: String) throws(InvalidLiteral) -> Data {
    guard literal.hasPrefix("base64:"), let data = Data(base64Encoded: String(literal.dropFirst(7)))
    else { throw InvalidLiteral(message: "expected base64:…, found \"\(literal)\"") }
    return data
  }

  static var isText: Bool { true }
}

extension UUID: DefaultsScalar {
  var literal: String { uuidString }

  static func value(of literal: String) throws(InvalidLiteral) -> UUID {
    guard let uuid = UUID(uuidString: literal) else {
      throw InvalidLiteral(message: "expected a UUID, found \"\(literal)\"")
    }
    return uuid
  }

  static var isText: Bool { true }
}

extension Date: DefaultsScalar {
  /// RFC 3339 in UTC with microseconds: `2026-11-21T09:30:00.123456Z`.
  var literal: String {
    let interval = timeIntervalSince1970
    var seconds = Int(interval.rounded(.down))
    var micros = Int(((interval - Double(seconds)) * 1_000_000).rounded())
    if micros == 1_000_000 {
      seconds += 1
      micros = 0
    }
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let year = String(parts.tm_year + 1900)
    let fraction = String(micros)
    return
      "\(String(repeating: "0", count: max(0, 4 - year.count)))\(year)-\(two(parts.tm_mon + 1))-"
      + "\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))."
      + "\(String(repeating: "0", count: 6 - fraction.count))\(fraction)Z"
  }

  static func value(of literal: String) throws(InvalidLiteral) -> Date {
    let invalid = InvalidLiteral(
      message:
        "expected an RFC 3339 date such as 2026-11-21T09:30:00.000000Z, found \"\(literal)\"")
    var reader = ASCIIReader(literal)
    // ASCII digits only: `Int32("٢٠٢٦")` is nil, and `timegm` would take a month 13.
    guard let year = reader.number(digits: 4), reader.take("-"),
      let month = reader.number(digits: 2, in: 1...12), reader.take("-"),
      let day = reader.number(digits: 2, in: 1...31), reader.take("T") || reader.take("t"),
      let hour = reader.number(digits: 2, in: 0...23), reader.take(":"),
      let minute = reader.number(digits: 2, in: 0...59), reader.take(":"),
      let second = reader.number(digits: 2, in: 0...60)
    else { throw invalid }
    var fraction = 0.0
    if reader.take(".") {
      let digits = reader.digits()
      guard (1...9).contains(digits.count), let value = Double("0." + digits) else { throw invalid }
      fraction = value
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
    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month - 1)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    // `timegm` rolls a day past the month's end into the next month: such a date is not one.
    // The seconds are added after, so that a leap second (:60) does not count as one.
    let start = timegm(&parts)
    guard parts.tm_mday == Int32(day) else { throw invalid }
    return Date(timeIntervalSince1970: Double(start + second - offset) + fraction)
  }

  static var isText: Bool { true }
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

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
    let pattern =
      /(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2}))/
    guard let match = literal.wholeMatch(of: pattern) else {
      throw InvalidLiteral(
        message:
          "expected an RFC 3339 date such as 2026-11-21T09:30:00.000000Z, found \"\(literal)\"")
    }
    var parts = tm()
    parts.tm_year = Int32(match.1)! - 1900
    parts.tm_mon = Int32(match.2)! - 1
    parts.tm_mday = Int32(match.3)!
    parts.tm_hour = Int32(match.4)!
    parts.tm_min = Int32(match.5)!
    parts.tm_sec = Int32(match.6)!
    var seconds = Double(timegm(&parts))
    if let sign = match.9, let hours = Double(match.10 ?? ""), let minutes = Double(match.11 ?? "")
    {
      seconds -= (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
    let fraction = match.7.flatMap { Double("0" + $0) } ?? 0
    return Date(timeIntervalSince1970: seconds + fraction)
  }

  static var isText: Bool { true }
}

import Foundation

/// Why a stored literal is not a value of the key's type.
package struct InvalidLiteral: Error {
  package let message: String
}

/// A type written as one literal: `true`, `42`, `0.1`, `https://…`.
protocol LiteralScalar: Sendable {
  /// The literal (before INI quoting); an error for a value no literal holds so that it reads
  /// back the same (a date outside the years 0000-9999).
  var literal: String { get throws(InvalidLiteral) }
  /// The value of a literal.
  static func value(of literal: String) throws(InvalidLiteral) -> Self
  /// Whether the literal is text, written as a JSON string inside an array.
  static var isText: Bool { get }
}

extension LiteralScalar {
  static var isText: Bool { false }
}

extension Bool: LiteralScalar {
  var literal: String { self ? "true" : "false" }

  static func value(of literal: String) throws(InvalidLiteral) -> Bool {
    switch literal.lowercased() {
    case "true", "yes", "on", "1": return true
    case "false", "no", "off", "0": return false
    default: throw InvalidLiteral(message: "expected true or false, found \"\(literal)\"")
    }
  }
}

extension LiteralScalar where Self: FixedWidthInteger {
  var literal: String { String(self) }

  static func value(of literal: String) throws(InvalidLiteral) -> Self {
    guard let value = Self(literal, radix: 10) else {
      throw InvalidLiteral(
        message: "expected a whole number from \(Self.min) to \(Self.max), found \"\(literal)\"")
    }
    return value
  }
}

extension Int: LiteralScalar {}
extension Int8: LiteralScalar {}
extension Int16: LiteralScalar {}
extension Int32: LiteralScalar {}
extension Int64: LiteralScalar {}
extension UInt: LiteralScalar {}
extension UInt8: LiteralScalar {}
extension UInt16: LiteralScalar {}
extension UInt32: LiteralScalar {}
extension UInt64: LiteralScalar {}

extension LiteralScalar where Self: BinaryFloatingPoint & LosslessStringConvertible {
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

extension Double: LiteralScalar {}
extension Float: LiteralScalar {}

extension String: LiteralScalar {
  var literal: String { self }
  static func value(of literal: String) throws(InvalidLiteral) -> String { literal }
  static var isText: Bool { true }
}

extension URL: LiteralScalar {
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

extension Data: LiteralScalar {
  var literal: String { "base64:" + base64EncodedString() }

  static func value(of literal: String) throws(InvalidLiteral) -> Data {
    guard literal.hasPrefix("base64:"), let data = Data(base64Encoded: String(literal.dropFirst(7)))
    else { throw InvalidLiteral(message: "expected base64:…, found \"\(literal)\"") }
    return data
  }

  static var isText: Bool { true }
}

extension UUID: LiteralScalar {
  var literal: String { uuidString }

  static func value(of literal: String) throws(InvalidLiteral) -> UUID {
    guard let uuid = UUID(uuidString: literal) else {
      throw InvalidLiteral(message: "expected a UUID, found \"\(literal)\"")
    }
    return uuid
  }

  static var isText: Bool { true }
}

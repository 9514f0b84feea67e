import Foundation

/// Why a stored literal is not a value of the key's type.
package struct InvalidLiteral: Error {
  package let message: String
}

/// A type stored as one literal in a defaults file: `true`, `42`, `0.1`, `https://…`.
protocol DefaultsScalar: Sendable {
  /// The literal written to the file (before INI quoting); an error for a value the file
  /// cannot hold so that it reads back the same (a date outside the years 0000-9999).
  var literal: String { get throws(InvalidLiteral) }
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

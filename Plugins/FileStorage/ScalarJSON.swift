package import Foundation

/// Reads the JSON of a file that holds one `Int`, `Bool` or `String` (a setting) without
/// `JSONDecoder`, whose set-up for a one-digit number costs more than the rest of starting a
/// file key.
///
/// Only the plain forms are read here: optional whitespace around `-?[1-9][0-9]*` or `0` within
/// `Int`'s range, `true`/`false`, and a quoted string without escapes or control characters in
/// valid UTF-8. Anything else (exponents, fractions, leading zeros, `-0`, escapes, a byte-order
/// mark, overflow, invalid UTF-8) gives `nil`, and the caller asks `JSONDecoder`, so a file
/// reads as the same value, or fails with the same error, either way.
package enum ScalarJSON {
  /// `data` read as a `V` when `V` is `Int`, `Bool` or `String` and `data` is in a plain form.
  package static func decode<V>(_ type: V.Type, from data: Data) -> V? {
    if V.self == Int.self {
      guard let value = data.withUnsafeBytes(int) else { return nil }
      return unsafeBitCast(value, to: V.self)
    }
    if V.self == Bool.self {
      guard let value = data.withUnsafeBytes(bool) else { return nil }
      return unsafeBitCast(value, to: V.self)
    }
    if V.self == String.self {
      guard let value = data.withUnsafeBytes(string) else { return nil }
      return unsafeBitCast(value, to: V.self)
    }
    return nil
  }

  /// The bytes without JSON's whitespace (space, tab, line feed, carriage return) around them.
  private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> Slice<UnsafeRawBufferPointer> {
    func isSpace(_ byte: UInt8) -> Bool {
      byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
    var start = bytes.startIndex
    var end = bytes.endIndex
    while start < end && isSpace(bytes[start]) { start += 1 }
    while end > start && isSpace(bytes[end - 1]) { end -= 1 }
    return bytes[start..<end]
  }

  private static func int(_ bytes: UnsafeRawBufferPointer) -> Int? {
    let text = trimmed(bytes)
    var index = text.startIndex
    let negative = index < text.endIndex && text[index] == UInt8(ascii: "-")
    if negative { index += 1 }
    guard index < text.endIndex, text[index] != UInt8(ascii: "0") else {
      return text.count == 1 && text.first == UInt8(ascii: "0") ? 0 : nil
    }
    var value = 0
    while index < text.endIndex {
      let digit = text[index] &- UInt8(ascii: "0")
      guard digit < 10 else { return nil }
      let (times10, overflowTimes) = value.multipliedReportingOverflow(by: 10)
      // Gathered on the side of its sign, so `Int.min` fits.
      let (next, overflowAdd) =
        negative
        ? times10.subtractingReportingOverflow(Int(digit))
        : times10.addingReportingOverflow(Int(digit))
      guard !overflowTimes && !overflowAdd else { return nil }
      value = next
      index += 1
    }
    return value
  }

  private static func bool(_ bytes: UnsafeRawBufferPointer) -> Bool? {
    let text = trimmed(bytes)
    if text.elementsEqual("true".utf8) { return true }
    if text.elementsEqual("false".utf8) { return false }
    return nil
  }

  private static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
    let text = trimmed(bytes)
    let quote = UInt8(ascii: "\"")
    guard text.count >= 2, text.first == quote, text.last == quote else { return nil }
    let inner = text.dropFirst().dropLast()
    guard !inner.contains(where: { $0 == quote || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
      return nil
    }
    return String(validating: inner, as: UTF8.self)
  }
}

/// The escape codec for INI values, kept in one place so that the writer, the parser and error
/// messages agree on exactly which text means which value.
///
/// A value is written bare (`name = some text`) whenever the bare form reads back as the same
/// Unicode scalars, and as a double-quoted literal (`name = "line\n"`) otherwise. Inside quotes,
/// `\"` `\\` `\n` `\r` `\t` and `\u{X}` (1 to 8 hex digits) are the only escapes.
///
/// Only ASCII space and tab are trimmed around a bare value; other whitespace such as U+00A0 is
/// kept by the parser. The writer still quotes values that start or end with any Unicode
/// whitespace, so that a reader of the file can see where the value begins and ends.
package enum INIString {
  /// The literal to write after `name = ` so that parsing gives back exactly `value`, scalar for
  /// scalar; every Swift `String` round-trips.
  ///
  /// Bare when that reads back identically, quoted otherwise. Control characters (C0, DEL, C1)
  /// and U+2028/U+2029 are escaped so that the file stays one value per visible line; all other
  /// Unicode is written as is.
  package static func encode(_ value: String) -> String {
    isBare(value) ? value : "\"" + escaped(value) + "\""
  }

  /// Parses a value literal: the text after the first `=` of an entry line.
  ///
  /// Surrounding spaces and tabs are ignored. A literal that starts with `"` must be a complete
  /// quoted string; anything else is taken verbatim, with no escapes and no trailing comments.
  /// Errors are `TetherError.invalidConfiguration` at `location` (`"origin:line"`).
  package static func decode(_ literal: String, location: String) throws(TetherError) -> String {
    let scalars = literal.unicodeScalars
    let isBlank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = scalars.firstIndex(where: { !isBlank($0) }),
      let last = scalars.lastIndex(where: { !isBlank($0) })
    else { return "" }
    let trimmed = scalars[first...last]
    guard trimmed.first == "\"" else { return String(String.UnicodeScalarView(trimmed)) }
    return try unquote(trimmed.dropFirst(), location: location)
  }

  /// `value` with quotes, backslashes and invisible characters escaped, without the surrounding
  /// quotes; also used to show names in error messages, which may contain anything.
  static func escaped(_ value: String) -> String {
    var output = String.UnicodeScalarView()
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": output.append(contentsOf: #"\""#.unicodeScalars)
      case "\\": output.append(contentsOf: #"\\"#.unicodeScalars)
      case "\n": output.append(contentsOf: #"\n"#.unicodeScalars)
      case "\r": output.append(contentsOf: #"\r"#.unicodeScalars)
      case "\t": output.append(contentsOf: #"\t"#.unicodeScalars)
      case _ where isInvisible(scalar):
        output.append(contentsOf: unicodeEscape(scalar).unicodeScalars)
      default: output.append(scalar)
      }
    }
    return String(output)
  }

  /// Whether writing `value` unquoted would read back as the same scalars (and look like it).
  private static func isBare(_ value: String) -> Bool {
    let scalars = value.unicodeScalars
    guard let first = scalars.first, let last = scalars.last else { return false }
    if first == "\"" || first.properties.isWhitespace || last.properties.isWhitespace {
      return false
    }
    return !scalars.contains(where: isInvisible)
  }

  /// Characters that would break the line or hide in an editor: C0, DEL, C1 and the Unicode line
  /// and paragraph separators.
  private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
      || scalar.value == 0x2029
  }

  /// The `\u{X}` form, in uppercase hex so that it is easy to look up.
  private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
    #"\u{"# + String(scalar.value, radix: 16, uppercase: true) + "}"
  }

  /// Decodes the scalars after the opening quote, up to and including the closing quote.
  private static func unquote(
    _ scalars: Substring.UnicodeScalarView, location: String
  ) throws(TetherError) -> String {
    var output = String.UnicodeScalarView()
    var index = scalars.startIndex
    while index < scalars.endIndex {
      let scalar = scalars[index]
      scalars.formIndex(after: &index)
      if scalar == "\"" {
        guard index == scalars.endIndex else {
          throw invalid("unexpected text after closing quote", location)
        }
        return String(output)
      }
      guard scalar == "\\" else {
        output.append(scalar)
        continue
      }
      guard index < scalars.endIndex else { break }
      let escape = scalars[index]
      scalars.formIndex(after: &index)
      switch escape {
      case "\"", "\\": output.append(escape)
      case "n": output.append("\n")
      case "r": output.append("\r")
      case "t": output.append("\t")
      case "u": output.append(try unicodeScalar(scalars, at: &index, location: location))
      case _ where isInvisible(escape):
        let shown = unicodeEscape(escape)
        throw invalid(#"invalid escape in quoted string: "\" followed by \#(shown)"#, location)
      default: throw invalid("invalid escape \\\(escape) in quoted string", location)
      }
    }
    throw invalid(#"unterminated quoted string (missing closing ")"#, location)
  }

  /// Reads `{X…}` after `\u`, keeping at most 9 digits so that a huge run of them cannot make a
  /// huge error message.
  private static func unicodeScalar(
    _ scalars: Substring.UnicodeScalarView, at index: inout String.Index, location: String
  ) throws(TetherError) -> Unicode.Scalar {
    var shown = #"\u"#
    var digits = ""
    var closed = false
    if index < scalars.endIndex, scalars[index] == "{" {
      shown += "{"
      scalars.formIndex(after: &index)
      var count = 0
      while index < scalars.endIndex, scalars[index].properties.isASCIIHexDigit {
        if count < 9 { digits.unicodeScalars.append(scalars[index]) }
        count += 1
        scalars.formIndex(after: &index)
      }
      shown += digits + (count > 9 ? "..." : "")
      if index < scalars.endIndex, scalars[index] == "}" {
        closed = true
        shown += "}"
        scalars.formIndex(after: &index)
      }
    }
    if closed, (1...8).contains(digits.count), let value = UInt32(digits, radix: 16),
      let scalar = Unicode.Scalar(value)
    {
      return scalar
    }
    throw invalid(
      "invalid escape \(shown) in quoted string: expected \\u{X} with 1 to 8 hex digits "
        + "naming a Unicode scalar value (0-D7FF or E000-10FFFF)",
      location)
  }

  /// Every error of a value is about the file it came from.
  private static func invalid(_ message: String, _ location: String) -> TetherError {
    .invalidConfiguration(message: message, location: location)
  }
}

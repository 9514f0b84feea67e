/// Arrays as literals: one line of JSON, `["a", "b"]` or `[1, 2.5, "nan"]`.
///
/// Elements are written from their literals: text always as JSON strings; numbers and booleans
/// bare when they are valid JSON, else as strings (`nan`, `inf`).
enum JSONArray {
  static func literal(_ elements: [String], quoted: Bool) -> String {
    let tokens = elements.map { quoted || !isBareJSON($0) ? quote($0) : $0 }
    return "[" + tokens.joined(separator: ", ") + "]"
  }

  /// The element literals of a one-line JSON array, strings unescaped.
  static func elements(of literal: String) throws(InvalidLiteral) -> [String] {
    let scalars = Array(literal.unicodeScalars)
    var index = 0
    func skipSpaces() {
      while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
    }
    func fail(_ what: String) -> InvalidLiteral {
      InvalidLiteral(
        message: "expected a one-line JSON array such as [1, 2] (\(what)), found \"\(literal)\"")
    }
    skipSpaces()
    guard index < scalars.count, scalars[index] == "[" else { throw fail("no [") }
    index += 1
    skipSpaces()
    var elements: [String] = []
    if index < scalars.count, scalars[index] == "]" {
      index += 1
    } else {
      while true {
        skipSpaces()
        guard index < scalars.count else { throw fail("no ]") }
        if scalars[index] == "\"" {
          elements.append(try string(scalars, &index, fail))
        } else {
          let start = index
          while index < scalars.count, scalars[index] != ",", scalars[index] != "]" { index += 1 }
          let token = String(String.UnicodeScalarView(scalars[start..<index]))
            .trimmingCharacters(in: [" ", "\t"])
          guard !token.isEmpty else { throw fail("an empty element") }
          elements.append(token)
        }
        skipSpaces()
        guard index < scalars.count else { throw fail("no ]") }
        if scalars[index] == "]" {
          index += 1
          break
        }
        guard scalars[index] == "," else { throw fail("no , between elements") }
        index += 1
      }
    }
    skipSpaces()
    guard index == scalars.count else { throw fail("text after ]") }
    return elements
  }

  /// A JSON string literal.
  static func quote(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _
      where scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{2028}"
        || scalar == "\u{2029}":
        let hex = String(scalar.value, radix: 16, uppercase: true)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }

  private static func isBareJSON(_ literal: String) -> Bool {
    literal == "true" || literal == "false" || isJSONNumber(literal)
  }

  /// Whether `literal` is a JSON number, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`,
  /// scanned by hand: a `Regex` match per element made saving a 20,000-element array take
  /// seconds.
  private static func isJSONNumber(_ literal: String) -> Bool {
    let bytes = Array(literal.utf8)
    var index = 0
    func isDigit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= 0x30 && bytes[at] <= 0x39 }
    func digits() -> Bool {
      guard isDigit(index) else { return false }
      while isDigit(index) { index += 1 }
      return true
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
    if index < bytes.count, bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else if !digits() {
      return false
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard digits() else { return false }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      guard digits() else { return false }
    }
    return index == bytes.count
  }

  /// Reads a JSON string starting at `index` (its opening quote), handling every JSON escape
  /// including surrogate pairs.
  private static func string(
    _ scalars: [Unicode.Scalar], _ index: inout Int, _ fail: (String) -> InvalidLiteral
  ) throws(InvalidLiteral) -> String {
    index += 1
    var result = String.UnicodeScalarView()
    while index < scalars.count {
      let scalar = scalars[index]
      index += 1
      if scalar == "\"" { return String(result) }
      guard scalar == "\\" else {
        result.append(scalar)
        continue
      }
      guard index < scalars.count else { break }
      let escape = scalars[index]
      index += 1
      switch escape {
      case "\"", "\\", "/": result.append(escape)
      case "n": result.append("\n")
      case "r": result.append("\r")
      case "t": result.append("\t")
      case "b": result.append("\u{8}")
      case "f": result.append("\u{C}")
      case "u":
        var code = try hex4(scalars, &index, fail)
        if (0xD800...0xDBFF).contains(code), index + 1 < scalars.count, scalars[index] == "\\",
          scalars[index + 1] == "u"
        {
          index += 2
          let low = try hex4(scalars, &index, fail)
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let decoded = Unicode.Scalar(code) else { throw fail("a bad \\u escape") }
        result.append(decoded)
      default: throw fail("a bad escape")
      }
    }
    throw fail("an unterminated string")
  }

  private static func hex4(
    _ scalars: [Unicode.Scalar], _ index: inout Int, _ fail: (String) -> InvalidLiteral
  ) throws(InvalidLiteral) -> UInt32 {
    guard index + 4 <= scalars.count,
      let code = UInt32(String(String.UnicodeScalarView(scalars[index..<index + 4])), radix: 16)
    else { throw fail("a bad \\u escape") }
    index += 4
    return code
  }
}

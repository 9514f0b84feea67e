/// One physical line of an INI file, kept verbatim so that lines nobody edits render
/// byte-for-byte, together with what it means so that queries need not parse it again.
struct INILine: Sendable {
  /// The meaning of a line.
  enum Kind: Sendable {
    /// Empty or only spaces and tabs.
    case blank
    /// First non-blank character is `#` or `;`.
    case comment
    /// `[name]`.
    case section(String)
    /// `name = value`; `prefix` is the line's text before the value literal, reused when the
    /// value is rewritten so that indentation and spacing around `=` survive the edit.
    case entry(name: String, value: String, prefix: String)
    /// A header that does not parse, in a leniently parsed document: the entries below it, up
    /// to the next good header, belong to no section anyone can look up.
    case invalidSection(TetherError)
    /// Any other line that does not parse, in a leniently parsed document; `name` is the
    /// entry's name when the text before `=` is one.
    case invalidEntry(name: String?, error: TetherError)
  }

  /// The line without its ending.
  var text: String
  /// `"\n"`, `"\r\n"`, or `""` for a last line without a newline.
  var ending: String
  /// What `text` means.
  var kind: Kind

  /// A line built by an edit rather than read from a file.
  init(text: String, ending: String, kind: Kind) {
    self.text = text
    self.ending = ending
    self.kind = kind
  }

  /// An entry line writing `value` after `prefix` (for example `"name = "`).
  init(name: String, value: String, prefix: String, ending: String) {
    self.init(name: name, value: .text(value), prefix: prefix, ending: ending)
  }

  /// An entry line writing `value` after `prefix`; `.empty` is the prefix alone, without the
  /// blanks after its `=` (`name =`), which would only trail the line.
  init(name: String, value: INIValue, prefix: String, ending: String) {
    switch value {
    case .text(let text):
      self.init(
        text: prefix + INIString.encode(text), ending: ending,
        kind: .entry(name: name, value: text, prefix: prefix))
    case .empty:
      var bare = Substring(prefix)
      while bare.last == " " || bare.last == "\t" { bare.removeLast() }
      self.init(
        text: String(bare), ending: ending, kind: .entry(name: name, value: "", prefix: prefix))
    }
  }

  /// An entry's value as written: `name =` is `.empty`, `name = ""` the empty text.
  var entryValue: INIValue? {
    guard case .entry(_, let value, let prefix) = kind else { return nil }
    guard value.isEmpty else { return .text(value) }
    // Only a quote makes a value that reads as empty anything but blank; the prefix holds
    // none (names have no quotes), and may be longer than a line written without a value.
    return text.utf8.dropFirst(prefix.utf8.count).first == UInt8(ascii: "\"") ? .text("") : .empty
  }

  /// Parses one line of a file; `location` (`"origin:line"`) is where errors point.
  init(parsing text: String, ending: String, location: String) throws(TetherError) {
    self.text = text
    self.ending = ending
    // Bytes, not Characters: a Character may merge a combining mark into the preceding space or
    // quote, and every byte the syntax looks at is ASCII, so byte offsets are scalar boundaries.
    let bytes = Array(text.utf8)
    var start = 0
    var end = bytes.count
    while start < end, Self.isBlank(bytes[start]) { start += 1 }
    while end > start, Self.isBlank(bytes[end - 1]) { end -= 1 }
    guard start < end else {
      kind = .blank
      return
    }
    switch bytes[start] {
    case UInt8(ascii: "#"), UInt8(ascii: ";"):
      kind = .comment
    case UInt8(ascii: "["):
      kind = .section(try Self.sectionName(bytes[start..<end], location: location))
    default:
      kind = try Self.entry(bytes, start..<end, location: location)
    }
  }

  /// The key this line defines, also when its value does not parse.
  var key: String? {
    switch kind {
    case .entry(let name, _, _): return name
    case .invalidEntry(let name, _): return name
    case .blank, .comment, .section, .invalidSection: return nil
    }
  }

  /// Parses one line, keeping one that does not parse as it is, with its error: how a defaults
  /// file a person edited is read, so one bad line costs only its own key.
  static func lenient(parsing text: String, ending: String, location: String) -> INILine {
    do {
      return try INILine(parsing: text, ending: ending, location: location)
    } catch {
      let trimmed = text.drop { $0 == " " || $0 == "\t" }
      if trimmed.hasPrefix("[") {
        return INILine(text: text, ending: ending, kind: .invalidSection(error))
      }
      var name = trimmed.firstIndex(of: "=").map { trimmed[..<$0] } ?? ""
      while let last = name.last, last == " " || last == "\t" { name = name.dropLast() }
      return INILine(
        text: text, ending: ending,
        kind: .invalidEntry(name: isValidName(String(name)) ? String(name) : nil, error: error))
    }
  }

  /// Whether `name` may be used as a section or key name.
  static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.allSatisfy(isNameByte)
  }

  /// `[A-Za-z0-9_.*-]`: `*` is allowed because key patterns such as `session.*` are names too.
  private static func isNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."),
      UInt8(ascii: "*"), UInt8(ascii: "-"):
      return true
    default:
      return false
    }
  }

  /// Only ASCII space and tab: other Unicode whitespace is content, kept so values round-trip.
  private static func isBlank(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
  }

  /// The name in a trimmed `[name]` line.
  private static func sectionName(
    _ bytes: ArraySlice<UInt8>, location: String
  ) throws(TetherError) -> String {
    guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else {
      throw invalid(#"expected "]" to close the section header"#, location)
    }
    guard close == bytes.endIndex - 1 else {
      throw invalid(#"unexpected text after "]" in section header"#, location)
    }
    var start = bytes.startIndex + 1
    var end = close
    while start < end, isBlank(bytes[start]) { start += 1 }
    while end > start, isBlank(bytes[end - 1]) { end -= 1 }
    guard start < end else {
      throw invalid(#"expected a section name between "[" and "]""#, location)
    }
    return try validName(bytes[start..<end], location: location)
  }

  /// Parses `name = value` where `range` is the line without surrounding blanks.
  private static func entry(
    _ bytes: [UInt8], _ range: Range<Int>, location: String
  ) throws(TetherError) -> Kind {
    guard let equals = bytes[range].firstIndex(of: UInt8(ascii: "=")) else {
      throw invalid(#"expected "name = value", "[section]" or a comment"#, location)
    }
    var nameEnd = equals
    while nameEnd > range.lowerBound, isBlank(bytes[nameEnd - 1]) { nameEnd -= 1 }
    guard range.lowerBound < nameEnd else {
      throw invalid(#"expected a name before "=""#, location)
    }
    let name = try validName(bytes[range.lowerBound..<nameEnd], location: location)
    var literalStart = equals + 1
    while literalStart < range.upperBound, isBlank(bytes[literalStart]) { literalStart += 1 }
    let literal = String(decoding: bytes[literalStart..<range.upperBound], as: UTF8.self)
    let value = try INIString.decode(literal, location: location)
    // An empty value leaves nothing to anchor on; "x =" becomes "x = new", "x=" becomes "x=new".
    let prefix =
      literalStart < range.upperBound
      ? String(decoding: bytes[..<literalStart], as: UTF8.self)
      : String(decoding: bytes[...equals], as: UTF8.self) + (nameEnd < equals ? " " : "")
    return .entry(name: name, value: value, prefix: prefix)
  }

  /// The name, or an error that shows it escaped, since a broken line may hold any character.
  private static func validName(
    _ bytes: ArraySlice<UInt8>, location: String
  ) throws(TetherError) -> String {
    let name = String(decoding: bytes, as: UTF8.self)
    guard isValidName(name) else {
      throw invalid(
        "invalid name \"\(INIString.escaped(name))\": names use A-Z a-z 0-9 _ . * -", location)
    }
    return name
  }

  /// Every error of a line is about the file it came from.
  private static func invalid(_ message: String, _ location: String) -> TetherError {
    .invalidConfiguration(message: message, location: location)
  }
}

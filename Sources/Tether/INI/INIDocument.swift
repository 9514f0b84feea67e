package import Foundation

/// An INI file that can be queried and edited in place.
///
/// The document keeps every line as it was read, so ``render()`` returns the input byte-for-byte
/// until an edit, and an edit changes only the lines it must: comments, blank lines, spacing and
/// line endings (LF or CRLF, per line) a person wrote are left alone.
///
/// The dialect: `[section]` headers, `name = value` entries and whole-line `#` or `;` comments.
/// There are no trailing comments and no line continuations. Names use `A-Z a-z 0-9 _ . * -`
/// and are case-sensitive. Entries before the first header belong to the root section `""`.
/// Values are quoted and unquoted by ``INIString``. A duplicate section or a duplicate key within
/// a section is an error, because silently picking one of two values hides mistakes.
package struct INIDocument: Sendable, Equatable {
  /// One `name = value` line.
  package struct Entry: Sendable, Equatable {
    /// The section the entry belongs to; `""` for entries before the first header.
    package let section: String
    /// The key name as written.
    package let name: String
    /// The value with quotes and escapes removed.
    package let value: String
    /// The 1-based line number in the rendered document.
    package let line: Int

    /// An entry as the parser would report it; lets callers build expected values.
    package init(section: String, name: String, value: String, line: Int) {
      self.section = section
      self.name = name
      self.value = value
      self.line = line
    }
  }

  /// The lines in order; line numbers are positions, so they stay right after edits.
  /// The lines in file order, each with its own ending.
  var lines: [INILine]

  /// An empty document.
  package init() {
    lines = []
  }

  /// Parses `text`; errors are `TetherError.invalidConfiguration` at `"<origin>:<line>"`.
  package init(parsing text: String, origin: String) throws(TetherError) {
    try self.init(bytes: Array(text.utf8), origin: origin)
  }

  /// Parses the contents of a file, reporting the line of the first byte that is not UTF-8.
  package init(parsing data: Data, origin: String) throws(TetherError) {
    try self.init(bytes: [UInt8](data), origin: origin)
  }

  /// Parses a file a person edits by hand, such as a defaults file: a line that does not parse
  /// (a broken quote, a second definition of a key) is kept as it is and listed in
  /// ``problems``, so one mistake costs only its own key. Throws only for bytes that are not
  /// UTF-8, which could not be kept as they are.
  ///
  /// A repeated section header continues its section when `mergingSections`; otherwise it is a
  /// problem too, and the lines under it belong to no section.
  package init(
    lenientlyParsing data: Data, origin: String, mergingSections: Bool = true
  ) throws(TetherError) {
    try self.init(
      bytes: [UInt8](data), origin: origin, lenient: true, mergingSections: mergingSections)
  }

  /// Both public initializers meet here: a `String` is valid UTF-8 already, so the check that
  /// `Data` needs costs it nothing but a pass over bytes it has anyway.
  private init(
    bytes: [UInt8], origin: String, lenient: Bool = false, mergingSections: Bool = false
  ) throws(TetherError) {
    lines = []
    var sectionLines: [String: Int] = [:]
    var keyLines: [String: [String: Int]] = [:]
    var section = ""
    for (offset, piece) in Self.split(bytes).enumerated() {
      let number = offset + 1
      let location = "\(origin):\(number)"
      // LF never occurs inside a multi-byte sequence, so checking line by line finds the same
      // errors as checking the whole file, and tells which line holds them.
      guard let text = String(validating: bytes[piece.content], as: UTF8.self) else {
        throw .invalidConfiguration(message: "file is not valid UTF-8", location: location)
      }
      var line =
        lenient
        ? INILine.lenient(parsing: text, ending: piece.ending, location: location)
        : try INILine(parsing: text, ending: piece.ending, location: location)
      switch line.kind {
      case .section(let name):
        if let first = sectionLines[name], !(lenient && mergingSections) {
          let error = TetherError.invalidConfiguration(
            message: "duplicate section [\(name)] (first at line \(first))", location: location)
          guard lenient else { throw error }
          line.kind = .invalidSection(error)
          section = Self.lostSection
        } else {
          // A second header of a hand-edited file continues its section.
          sectionLines[name] = sectionLines[name] ?? number
          section = name
        }
      case .entry(let name, _, _) where section != Self.lostSection:
        if let first = keyLines[section]?[name] {
          let error = TetherError.invalidConfiguration(
            message: "duplicate key \"\(name)\" (first defined at line \(first))",
            location: location)
          guard lenient else { throw error }
          line.kind = .invalidEntry(name: name, error: error)
        }
        keyLines[section, default: [:]][name] = number
      case .invalidSection:
        section = Self.lostSection
      case .entry, .blank, .comment, .invalidEntry:
        break
      }
      lines.append(line)
    }
  }

  /// The section of the lines below a header that does not parse: not a name, so it never
  /// matches one.
  private static let lostSection = "["

  /// The section the lines after `line` belong to, `current` being that of the lines before.
  static func section(after line: INILine, _ current: String) -> String {
    switch line.kind {
    case .section(let name): return name
    case .invalidSection: return lostSection
    case .entry, .invalidEntry, .blank, .comment: return current
    }
  }

  /// A line of a leniently parsed document that does not parse.
  package struct Problem: Sendable, Equatable {
    /// The section the line is in; `nil` below a header that does not parse.
    package let section: String?
    /// The key the line defines, when its name could be read.
    package let name: String?
    /// Why the line does not parse, at its `file:line`.
    package let error: TetherError
  }

  /// The lines that do not parse, in file order (always empty for a strictly parsed document).
  package var problems: [Problem] {
    var result: [Problem] = []
    var section: String? = ""
    for line in lines {
      switch line.kind {
      case .section(let name):
        section = name
      case .invalidSection(let error):
        section = nil
        result.append(Problem(section: nil, name: nil, error: error))
      case .invalidEntry(let name, let error):
        result.append(Problem(section: section, name: name, error: error))
      case .entry, .blank, .comment:
        break
      }
    }
    return result
  }

  /// Section names in file order; the root section `""` comes first, and only if it has entries.
  package var sections: [String] {
    var names: [String] = []
    // A merged section's second header adds no name.
    var seen: Set<String> = []
    var rootHasEntries = false
    var current = ""
    for line in lines {
      current = Self.section(after: line, current)
      switch line.kind {
      case .section(let name) where seen.insert(name).inserted: names.append(name)
      case .entry where current.isEmpty: rootHasEntries = true
      default: break
      }
    }
    return rootHasEntries ? [""] + names : names
  }

  /// All entries in file order.
  package var entries: [Entry] {
    var result: [Entry] = []
    var section = ""
    for (index, line) in lines.enumerated() {
      section = Self.section(after: line, section)
      if case .entry(let name, let value, _) = line.kind, section != Self.lostSection {
        result.append(Entry(section: section, name: name, value: value, line: index + 1))
      }
    }
    return result
  }

  /// Whether `entry`'s value is written in quotes.
  package func isQuoted(_ entry: Entry) -> Bool {
    guard lines.indices.contains(entry.line - 1),
      case .entry(_, _, let prefix) = lines[entry.line - 1].kind
    else { return false }
    return lines[entry.line - 1].text.utf8.dropFirst(prefix.utf8.count).first
      == UInt8(ascii: "\"")
  }

  /// What `entry`'s line holds after its `=`: `.empty` for `name =`, which `name = ""` (the
  /// empty text) is not.
  package func value(of entry: Entry) -> INIValue {
    guard lines.indices.contains(entry.line - 1), let value = lines[entry.line - 1].entryValue
    else { return .text(entry.value) }
    return value
  }

  /// The entries of one section in file order; `""` is the root section.
  package func entries(in section: String) -> [Entry] {
    entries.filter { $0.section == section }
  }

  /// The entry `name` in `section`, if present.
  package func entry(section: String, name: String) -> Entry? {
    // Walks the lines without building every entry: stores look keys up one at a time.
    guard let index = position(section: section, name: name).entry,
      case .entry(_, let value, _) = lines[index].kind
    else { return nil }
    return Entry(section: section, name: name, value: value, line: index + 1)
  }

  /// The value of `name` in `section`, if present.
  package func value(section: String, name: String) -> String? {
    entry(section: section, name: name)?.value
  }

  /// The 1-based line of each section's first header; the root `""` has none.
  package var sectionLines: [String: Int] {
    var result: [String: Int] = [:]
    for (index, line) in lines.enumerated() {
      if case .section(let name) = line.kind, result[name] == nil { result[name] = index + 1 }
    }
    return result
  }

  /// Whether `name` can be used as a section or key name: `[A-Za-z0-9_.*-]+`.
  package static func isValidName(_ name: String) -> Bool {
    INILine.isValidName(name)
  }

  /// The document as text; byte-for-byte the parsed input when nothing was edited.
  package func render() -> String {
    var text = ""
    text.reserveCapacity(lines.reduce(0) { $0 + $1.text.utf8.count + $1.ending.utf8.count })
    for line in lines {
      text += line.text
      text += line.ending
    }
    return text
  }

  /// Equal when both render the same bytes; `String ==` would also equate canonically
  /// equivalent text, which the file would not.
  package static func == (lhs: INIDocument, rhs: INIDocument) -> Bool {
    lhs.lines.elementsEqual(rhs.lines) {
      $0.text.utf8.elementsEqual($1.text.utf8) && $0.ending == $1.ending
    }
  }

  /// Splits at LF, keeping each line's own ending; a final line without LF is kept too.
  private static func split(_ bytes: [UInt8]) -> [(content: Range<Int>, ending: String)] {
    var pieces: [(content: Range<Int>, ending: String)] = []
    var start = 0
    for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
      if index > start, bytes[index - 1] == UInt8(ascii: "\r") {
        pieces.append((start..<index - 1, "\r\n"))
      } else {
        pieces.append((start..<index, "\n"))
      }
      start = index + 1
    }
    if start < bytes.count { pieces.append((start..<bytes.count, "")) }
    return pieces
  }
}

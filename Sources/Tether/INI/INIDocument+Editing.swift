/// Editing: setting and removing entries while touching as little of the file as possible.
extension INIDocument {
  /// Sets `name` in `section` (`""` for the root), touching as little of the file as possible.
  ///
  /// An existing entry keeps its line, indentation, spelling and spacing around `=`; only the
  /// value literal changes. A new entry goes right after the last entry of its section (or its
  /// header); a new root entry goes before the first header and the comment above it. A new
  /// section is appended at the end after a blank line. Both names must satisfy
  /// ``isValidName(_:)`` (an empty `section` means the root): they come from code, not files,
  /// and a key name from anywhere else is checked against ``KeyName`` before it gets here.
  package mutating func setValue(_ value: String, section: String, name: String) {
    setValue(.text(value), section: section, name: name)
  }

  /// Sets `name` in `section` as the `String` form does; the value may also be `.empty`, written
  /// `name =`.
  package mutating func setValue(_ value: INIValue, section: String, name: String) {
    precondition(
      Self.isValidName(name) && (section.isEmpty || Self.isValidName(section)),
      "INI names use A-Z a-z 0-9 _ . * -: section \"\(section)\", name \"\(name)\"")
    let position = position(section: section, name: name)
    let entryLine = INILine(name: name, value: value, prefix: "\(name) = ", ending: newline)
    if let index = position.entry {
      guard case .entry(_, _, let prefix) = lines[index].kind else {
        // A line that did not parse is this key's: the new value replaces it.
        lines[index] = INILine(
          name: name, value: value, prefix: "\(name) = ", ending: lines[index].ending)
        return
      }
      // Scalars, not ==: canonically equivalent strings must still be written as given.
      if lines[index].entryValue?.isWritten(as: value) == true { return }
      lines[index] = INILine(name: name, value: value, prefix: prefix, ending: lines[index].ending)
    } else if let anchor = position.lastEntry ?? position.header {
      insert(entryLine, at: anchor + 1)
    } else if section.isEmpty, let header = position.firstHeader {
      insertRoot(entryLine, before: header)
    } else if section.isEmpty {
      insert(entryLine, at: lines.count)
    } else {
      if let last = lines.last, !isBlank(last) { insert(blankLine, at: lines.count) }
      let header = INILine(text: "[\(section)]", ending: newline, kind: .section(section))
      insert(header, at: lines.count)
      insert(entryLine, at: lines.count)
    }
  }

  /// Deletes the line of `name` in `section`, if present; nothing else changes.
  package mutating func removeValue(section: String, name: String) {
    if let index = position(section: section, name: name).entry {
      lines.remove(at: index)
    }
  }

  /// Makes many edits in linear time, as when a defaults file takes every change a process
  /// made: the removals (`nil`) first, then the values in order, each placed as
  /// ``setValue(_:section:name:)`` and ``removeValue(section:name:)`` would place it.
  package mutating func apply(_ edits: [(section: String, name: String, value: String?)]) {
    apply(edits.map { (section: $0.section, name: $0.name, value: $0.value.map(INIValue.text)) })
  }

  /// Makes many edits as the `String` form does; a value may also be `.empty`, written
  /// `name =`.
  package mutating func apply(_ edits: [(section: String, name: String, value: INIValue?)]) {
    let removals = Set(edits.filter { $0.value == nil }.map { Pair($0.section, $0.name) })
    // A key a hand edit defined twice (its second line kept as a problem) is defined once by
    // a new value: the first line takes it, the others go.
    let written = Set(edits.filter { $0.value != nil }.map { Pair($0.section, $0.name) })
    if !removals.isEmpty || !problems.isEmpty {
      var current = ""
      var seen: Set<Pair> = []
      lines.removeAll { line in
        current = Self.section(after: line, current)
        guard let key = line.key else { return false }
        let pair = Pair(current, key)
        if removals.contains(pair) { return true }
        return written.contains(pair) && !seen.insert(pair).inserted
      }
    }
    let newline = self.newline
    var found: [Pair: Int] = [:]
    var anchor: [String: Int] = [:]
    var current = ""
    for (index, line) in lines.enumerated() {
      current = Self.section(after: line, current)
      if case .section(let header) = line.kind { anchor[header] = index }
      if let key = line.key {
        found[Pair(current, key)] = index
        anchor[current] = index
      }
    }
    var appended: [Int: [INILine]] = [:]
    var newSections: [(name: String, lines: [INILine])] = []
    var newRoot: [(name: String, value: INIValue)] = []
    for edit in edits {
      guard let value = edit.value else { continue }
      if let index = found[Pair(edit.section, edit.name)] {
        // A line that did not parse is this key's: the new value replaces it.
        var prefix = "\(edit.name) = "
        if case .entry(_, _, let kept) = lines[index].kind {
          if lines[index].entryValue?.isWritten(as: value) == true { continue }
          prefix = kept
        }
        lines[index] = INILine(
          name: edit.name, value: value, prefix: prefix, ending: lines[index].ending)
        continue
      }
      let line = INILine(
        name: edit.name, value: value, prefix: "\(edit.name) = ", ending: newline)
      if let at = anchor[edit.section] {
        appended[at, default: []].append(line)
      } else if edit.section.isEmpty {
        // A first root entry goes above the first header's comment: the single-edit rule.
        newRoot.append((edit.name, value))
      } else if let index = newSections.firstIndex(where: { $0.name == edit.section }) {
        newSections[index].lines.append(line)
      } else {
        newSections.append((edit.section, [line]))
      }
    }
    if !appended.isEmpty {
      var rebuilt: [INILine] = []
      rebuilt.reserveCapacity(lines.count + appended.values.reduce(0) { $0 + $1.count })
      for (index, line) in lines.enumerated() {
        rebuilt.append(line)
        guard let extra = appended[index] else { continue }
        if rebuilt[rebuilt.count - 1].ending.isEmpty { rebuilt[rebuilt.count - 1].ending = newline }
        rebuilt.append(contentsOf: extra)
      }
      lines = rebuilt
    }
    for (section, entries) in newSections {
      if let last = lines.last, !isBlank(last) { insert(blankLine, at: lines.count) }
      insert(
        INILine(text: "[\(section)]", ending: newline, kind: .section(section)), at: lines.count)
      lines.append(contentsOf: entries)
    }
    for (name, value) in newRoot { setValue(value, section: "", name: name) }
  }

  /// A section and a key name.
  struct Pair: Hashable {
    let section: String
    let name: String
    init(_ section: String, _ name: String) {
      self.section = section
      self.name = name
    }
  }

  /// Where an entry is, or where a new one would go.
  struct Position {
    var entry: Int?
    var lastEntry: Int?
    var header: Int?
    var firstHeader: Int?
  }

  /// One pass finds both the entry and every anchor an insertion may need.
  func position(section: String, name: String) -> Position {
    var position = Position()
    var current = ""
    for (index, line) in lines.enumerated() {
      current = Self.section(after: line, current)
      if case .section(let header) = line.kind {
        if position.firstHeader == nil { position.firstHeader = index }
        if header == section { position.header = index }
      } else if case .invalidSection = line.kind {
        // A new root entry below a header, even a broken one, would not be in the root.
        if position.firstHeader == nil { position.firstHeader = index }
      } else if let key = line.key, current == section {
        position.lastEntry = index
        if key == name { position.entry = index }
      }
    }
    return position
  }

  /// The file's own line ending for new lines: that of its first terminated line.
  var newline: String {
    lines.first { !$0.ending.isEmpty }?.ending ?? "\n"
  }

  /// The separator put before a new section or after a new first root entry.
  var blankLine: INILine {
    INILine(text: "", ending: newline, kind: .blank)
  }

  /// Whether `line` already separates what is above it from what is below.
  func isBlank(_ line: INILine) -> Bool {
    if case .blank = line.kind { return true }
    return false
  }

  /// Inserts a terminated line, first terminating the line before it if it was the last one.
  mutating func insert(_ line: INILine, at index: Int) {
    if index > 0, lines[index - 1].ending.isEmpty {
      lines[index - 1].ending = newline
    }
    lines.insert(line, at: index)
  }

  /// Puts a first root entry above the comment block that describes the first section, so the
  /// comment stays attached to its header, and separates the two with a blank line.
  mutating func insertRoot(_ line: INILine, before header: Int) {
    var index = header
    while index > 0, case .comment = lines[index - 1].kind { index -= 1 }
    insert(line, at: index)
    if !isBlank(lines[index + 1]) { insert(blankLine, at: index + 1) }
  }
}

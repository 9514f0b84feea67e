import Testing
import Tether

@Suite("INIDocument editing")
struct INIDocumentEditingTests {
  /// One `setValue` on an existing key and the single line it should produce.
  struct EditCase: Sendable, CustomTestStringConvertible {
    let text: String
    let section: String
    let name: String
    let value: String
    let line: Int
    let expected: String

    var testDescription: String { "\(section).\(name) = \(value.debugDescription)" }
  }

  static let edits: [EditCase] = [
    EditCase(
      text: INIDocumentTests.sample, section: "strategy.file", name: "throttle", value: "5s",
      line: 10, expected: "throttle  = 5s\n"),
    EditCase(
      text: INIDocumentTests.withMixedEndings(INIDocumentTests.sample), section: "keys",
      name: "session.*", value: "disk", line: 5, expected: "session.*     = disk\r\n"),
    EditCase(
      text: String(INIDocumentTests.sample.dropLast()), section: "key.favoriteFacts",
      name: "title", value: "Best\tfacts", line: 19, expected: #"title = "Best\tfacts""#),
    EditCase(
      text: "[s]\n  name   =  v\r\nother=1\n", section: "s", name: "name", value: "new", line: 2,
      expected: "  name   =  new\r\n"),
    EditCase(
      text: "[s]\n  name   =  v\r\nother=1\n", section: "s", name: "other", value: " 2", line: 3,
      expected: "other=\" 2\"\n"),
    EditCase(
      text: "x =\ny=\t\nz = \"\"", section: "", name: "x", value: "1", line: 1,
      expected: "x = 1\n"),
    EditCase(
      text: "x =\ny=\t\nz = \"\"", section: "", name: "y", value: "2", line: 2,
      expected: "y=2\n"),
    EditCase(
      text: "x =\ny=\t\nz = \"\"", section: "", name: "z", value: "", line: 3,
      expected: #"z = """#),
    EditCase(
      text: "a = \u{E9}\n", section: "", name: "a", value: "e\u{301}", line: 1,
      expected: "a = e\u{301}\n"),
  ]

  @Test("editing one value changes exactly that line", arguments: edits)
  func editChangesOneLine(_ edit: EditCase) throws {
    var document = try INIDocument(parsing: edit.text, origin: "edit.ini")
    document.setValue(edit.value, section: edit.section, name: edit.name)
    let before = physicalLines(edit.text)
    let after = physicalLines(document.render())
    try #require(before.count == after.count)
    for index in before.indices where index != edit.line - 1 {
      #expect(before[index] == after[index], "line \(index + 1) changed")
    }
    #expect(after[edit.line - 1] == Array(edit.expected.utf8))
    let reparsed = try INIDocument(parsing: document.render(), origin: "edit.ini")
    let value = reparsed.value(section: edit.section, name: edit.name) ?? "<missing>"
    #expect(Array(value.unicodeScalars) == Array(edit.value.unicodeScalars))
  }

  @Test(
    "a new key goes after the last entry of its section, or after its header",
    arguments: [
      ("[a]\nx = 1\n\n[b]\ny = 2\n", "a", "[a]\nx = 1\nk = v\n\n[b]\ny = 2\n"),
      ("[a]\n# about b\n[b]\ny = 2\n", "a", "[a]\nk = v\n# about b\n[b]\ny = 2\n"),
      ("[a]\nx = 1", "a", "[a]\nx = 1\nk = v\n"),
      ("[a]\r\nx = 1\r\n\r\n[b]\n", "b", "[a]\r\nx = 1\r\n\r\n[b]\nk = v\r\n"),
    ])
  func insertIntoSection(text: String, section: String, expected: String) throws {
    var document = try INIDocument(parsing: text, origin: "i.ini")
    document.setValue("v", section: section, name: "k")
    #expect(document.render() == expected)
  }

  @Test(
    "a new section is appended after a blank line",
    arguments: [
      ("", "[new]\nk = v\n"),
      ("[a]\nx = 1\n", "[a]\nx = 1\n\n[new]\nk = v\n"),
      ("[a]\nx = 1\n\n", "[a]\nx = 1\n\n[new]\nk = v\n"),
      ("[a]\nx = 1", "[a]\nx = 1\n\n[new]\nk = v\n"),
      ("# c\r\n[a]\r\n", "# c\r\n[a]\r\n\r\n[new]\r\nk = v\r\n"),
    ])
  func appendSection(text: String, expected: String) throws {
    var document = try INIDocument(parsing: text, origin: "i.ini")
    document.setValue("v", section: "new", name: "k")
    #expect(document.render() == expected)
  }

  @Test(
    "a new root key goes after the root entries, or above the first header and its comment",
    arguments: [
      ("", "k = v\n"),
      ("# only a comment", "# only a comment\nk = v\n"),
      ("a = 1\n\n[s]\n", "a = 1\nk = v\n\n[s]\n"),
      ("[s]\nx = 1\n", "k = v\n\n[s]\nx = 1\n"),
      ("# file\n\n# about s\n# more\n[s]\n", "# file\n\nk = v\n\n# about s\n# more\n[s]\n"),
    ])
  func insertIntoRoot(text: String, expected: String) throws {
    var document = try INIDocument(parsing: text, origin: "i.ini")
    document.setValue("v", section: "", name: "k")
    #expect(document.render() == expected)
  }

  @Test("line numbers follow insertions")
  func lineNumbersAfterEdits() throws {
    var document = try INIDocument(parsing: INIDocumentTests.sample, origin: "l.ini")
    document.setValue("on", section: "", name: "debug")
    document.setValue("3", section: "keys", name: "retries")
    #expect(document.sections.first == "")
    #expect(document.entry(section: "", name: "debug")?.line == 1)
    #expect(document.sectionLines["keys"] == 4)
    #expect(document.entry(section: "keys", name: "retries")?.line == 8)
    #expect(document.entry(section: "key.favoriteFacts", name: "title")?.line == 22)
    let reparsed = try INIDocument(parsing: document.render(), origin: "l.ini")
    #expect(reparsed.entries == document.entries)
  }

  @Test("removeValue deletes exactly that line")
  func remove() throws {
    var document = try INIDocument(parsing: INIDocumentTests.sample, origin: "d.ini")
    document.removeValue(section: "keys", name: "favoriteFacts")
    var expected = physicalLines(INIDocumentTests.sample)
    expected.remove(at: 3)
    #expect(physicalLines(document.render()) == expected)
    #expect(document.value(section: "keys", name: "favoriteFacts") == nil)
    #expect(document.entry(section: "keys", name: "session.*")?.line == 4)

    let unchanged = document
    document.removeValue(section: "keys", name: "missing")
    document.removeValue(section: "", name: "count")
    #expect(document == unchanged)

    var last = try INIDocument(parsing: "[a]\r\nx = 1\r\ny = 2", origin: "d.ini")
    last.removeValue(section: "a", name: "y")
    #expect(last.render() == "[a]\r\nx = 1\r\n")
  }
}

/// The file's lines as bytes, each with its own ending, so that comparisons see CR and LF.
private func physicalLines(_ text: String) -> [[UInt8]] {
  var lines: [[UInt8]] = []
  var current: [UInt8] = []
  for byte in text.utf8 {
    current.append(byte)
    if byte == 10 {
      lines.append(current)
      current = []
    }
  }
  if !current.isEmpty { lines.append(current) }
  return lines
}

@Suite("INIDocument.apply")
struct INIDocumentBatchTests {
  @Test("a batch renders what its removals, then its values, made one by one render")
  func batchEqualsSequentialEdits() throws {
    let base = try INIDocument(
      parsing: "# top\nroot = 1\n\n[a]\nx = 1\ny = 2\n\n; about b\n[b]\nz = 3", origin: "t.ini")
    var random = SplitMix64(seed: 0xBA7C_0004)
    let sections = ["", "a", "b", "c", "d.e"]
    let names = ["x", "y", "z", "root", "new", "w"]
    for iteration in 0..<2000 {
      var edits: [(section: String, name: String, value: String?)] = []
      var seen = Set<String>()
      for _ in 0..<Int.random(in: 1...6, using: &random) {
        let section = sections[Int.random(in: 0..<sections.count, using: &random)]
        let name = names[Int.random(in: 0..<names.count, using: &random)]
        guard seen.insert(section + "." + name).inserted else { continue }
        edits.append((section, name, Bool.random(using: &random) ? nil : "v\(iteration)"))
      }
      var batch = base
      batch.apply(edits)
      var sequential = base
      for edit in edits.filter({ $0.value == nil }) + edits.filter({ $0.value != nil }) {
        if let value = edit.value {
          sequential.setValue(value, section: edit.section, name: edit.name)
        } else {
          sequential.removeValue(section: edit.section, name: edit.name)
        }
      }
      guard batch.render() == sequential.render() else {
        Issue.record(
          "iteration \(iteration), edits \(edits):\n\(batch.render())\n---\n\(sequential.render())")
        return
      }
    }
  }
}

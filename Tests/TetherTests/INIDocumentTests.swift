import Foundation
import Testing
import Tether

@Suite("INIDocument")
struct INIDocumentTests {
  @Test("any value survives setValue, render and parse, scalar for scalar")
  func randomValuesRoundTrip() throws {
    let seed: UInt64 = 0x7E7E_0001
    var random = SplitMix64(seed: seed)
    let base = try INIDocument(parsing: Self.sample, origin: "sample.ini")
    let targets = [
      ("strategy.file", "throttle"), ("key.favoriteFacts", "title"), ("keys", "newKey"),
      ("new.section", "key"), ("", "rootKey"),
    ]
    for iteration in 0..<10_000 {
      let value = randomValue(using: &random)
      let (section, name) = targets[iteration % targets.count]
      var document = base
      document.setValue(value, section: section, name: name)
      let text = document.render()
      let context = "seed \(seed), iteration \(iteration), value \(value.debugDescription)"
      let reparsed: INIDocument
      do {
        reparsed = try INIDocument(parsing: text, origin: "roundtrip.ini")
      } catch {
        Issue.record("\(context): \(error) in \(text.debugDescription)")
        return
      }
      let read = reparsed.value(section: section, name: name) ?? "<missing>"
      let others = base.entries.filter { $0.section != section || $0.name != name }
      guard Array(read.unicodeScalars) == Array(value.unicodeScalars),
        others.allSatisfy({ reparsed.value(section: $0.section, name: $0.name) == $0.value })
      else {
        Issue.record("\(context): read back \(read.debugDescription) from \(text.debugDescription)")
        return
      }
    }
  }

  /// The sample with 1 to 4 random byte edits, `count` times over, the same for one `seed`.
  private func mutations(seed: UInt64, count: Int = 10_000) -> [[UInt8]] {
    var random = SplitMix64(seed: seed)
    let original = Array(Self.sample.utf8)
    return (0..<count).map { _ in
      var bytes = original
      for _ in 0..<Int.random(in: 1...4, using: &random) { mutate(&bytes, using: &random) }
      return bytes
    }
  }

  @Test("mutated files either parse and render unchanged, or fail at a line inside the file")
  func mutatedFilesNeverCrash() {
    let seed: UInt64 = 0xF022_0002
    for (iteration, bytes) in mutations(seed: seed).enumerated() {
      let context = { "seed \(seed), iteration \(iteration), input \(bytes)" }
      let lineCount =
        bytes.split(separator: 10, omittingEmptySubsequences: false).count
        - (bytes.last == 10 || bytes.isEmpty ? 1 : 0)
      do {
        let document = try INIDocument(parsing: Data(bytes), origin: "fuzz.ini")
        guard Array(document.render().utf8) == bytes else {
          Issue.record("\(context()): render differs from input")
          return
        }
      } catch {
        guard case .invalidConfiguration(let message, let location) = error,
          !message.isEmpty, location.hasPrefix("fuzz.ini:"),
          let line = Int(location.dropFirst("fuzz.ini:".count)), (1...lineCount).contains(line)
        else {
          Issue.record("\(context()): \(error) is not at a line of the \(lineCount)-line input")
          return
        }
      }
    }
  }

  @Test("a mutated file parsed leniently renders unchanged, and its problems are at its lines")
  func mutatedFilesParseLeniently() throws {
    let seed: UInt64 = 0xF022_0003
    for (iteration, bytes) in mutations(seed: seed).enumerated() {
      guard String(validating: bytes, as: UTF8.self) != nil else { continue }
      let context = { "seed \(seed), iteration \(iteration), input \(bytes)" }
      let lineCount = bytes.split(separator: 10, omittingEmptySubsequences: false).count
      var document = try INIDocument(lenientlyParsing: Data(bytes), origin: "fuzz.ini")
      guard Array(document.render().utf8) == bytes else {
        Issue.record("\(context()): render differs from input")
        return
      }
      for problem in document.problems {
        guard case .invalidConfiguration(_, let location) = problem.error,
          let line = Int(location.dropFirst("fuzz.ini:".count)), (1...lineCount).contains(line)
        else {
          Issue.record("\(context()): \(problem.error) is not at a line of the input")
          return
        }
      }
      // An edit of a key keeps every line that did not parse, except that key's own.
      let kept = document.problems.filter { $0.name != "fresh" }.count
      document.apply([(section: "", name: "fresh", value: "1")])
      let reparsed = try INIDocument(
        lenientlyParsing: Data(document.render().utf8), origin: "fuzz.ini")
      guard reparsed.problems.count == kept else {
        Issue.record("\(context()): an edit changed the lines that do not parse")
        return
      }
    }
  }

  @Test("malformed lines are reported with their location and what was expected")
  func errors() {
    let cases: [(String, Int, String)] = [
      ("[keys]\ncount\n", 2, #"expected "name = value", "[section]" or a comment"#),
      ("a = 1\r\n\r\n  b c\r\n", 3, #"expected "name = value", "[section]" or a comment"#),
      ("[s]\ntitle = \"Favourite\n", 2, #"unterminated quoted string (missing closing ")"#),
      (#"x = "a\qb""#, 1, #"invalid escape \q in quoted string"#),
      ("[s]\nx = 1\n\nx = 2\n", 4, #"duplicate key "x" (first defined at line 2)"#),
      ("x = 1\n[s]\nx = 2\n[t]\nx = 3\n[s]\n", 6, "duplicate section [s] (first at line 2)"),
      ("a b = 1\n", 1, #"invalid name "a b": names use A-Z a-z 0-9 _ . * -"#),
      ("[a b]\n", 1, #"invalid name "a b": names use A-Z a-z 0-9 _ . * -"#),
      ("k\"\0 = 1\n", 1, #"invalid name "k\"\u{0}": names use A-Z a-z 0-9 _ . * -"#),
      (#"x = "a" b"#, 1, "unexpected text after closing quote"),
      ("[keys\n", 1, #"expected "]" to close the section header"#),
      ("[keys] x\n", 1, #"unexpected text after "]" in section header"#),
      ("[ ]\n", 1, #"expected a section name between "[" and "]""#),
      ("= 1\n", 1, #"expected a name before "=""#),
    ]
    for (text, line, message) in cases {
      let expected = TetherError.invalidConfiguration(message: message, location: "e.ini:\(line)")
      #expect(throws: expected, "\(text.debugDescription)") {
        try INIDocument(parsing: text, origin: "e.ini")
      }
    }
  }

  @Test("bytes that are not UTF-8 are reported at their line")
  func invalidUTF8() {
    let cases: [([UInt8], Int)] = [
      (Array("[s]\nk = caf".utf8) + [0xC3] + Array("\n".utf8), 2),
      (Array("# ok\r\n\r\n".utf8) + [0xFF], 3),
      (Array("a = ".utf8) + [0xED, 0xA0, 0x80], 1),
      (Array("a = 1\n# ".utf8) + [0xC0, 0xAF] + Array("\r\n".utf8), 2),
    ]
    for (bytes, line) in cases {
      let expected = TetherError.invalidConfiguration(
        message: "file is not valid UTF-8", location: "u.ini:\(line)")
      #expect(throws: expected) { try INIDocument(parsing: Data(bytes), origin: "u.ini") }
    }
  }

  @Test("an unedited document renders its input byte-for-byte")
  func unchangedRender() throws {
    let texts = [
      Self.sample, Self.withMixedEndings(Self.sample), String(Self.sample.dropLast()), "",
      "\n\r\n", "   ", "; only a comment",
      "\t# tab\r\n  [ a ]  \r\n\tx\t=\t\"v\" \t\r\ny=\nz = e\u{301}\u{0}\r",
      "huge = " + String(repeating: "\u{1F600}x", count: 500_000),
    ]
    for text in texts {
      let document = try INIDocument(parsing: text, origin: "r.ini")
      #expect(
        Array(document.render().utf8) == Array(text.utf8), "\(text.prefix(80).debugDescription)")
      let data = try INIDocument(parsing: Data(text.utf8), origin: "r.ini")
      #expect(data == document)
    }
  }

  @Test("queries see sections, entries and line numbers in file order")
  func queries() throws {
    let document = try INIDocument(parsing: Self.sample, origin: "q.ini")
    #expect(document.sections == ["keys", "strategy.file", "strategy.cache", "key.favoriteFacts"])
    #expect(document.entries.count == 9)
    #expect(document.entries(in: "keys").map(\.name) == ["count", "favoriteFacts", "session.*"])
    #expect(document.value(section: "key.favoriteFacts", name: "title") == "Favourite \"facts\"\n")
    #expect(document.value(section: "strategy.file", name: "directory") == "$XDG_DATA_HOME/facts")
    #expect(document.value(section: "strategy.cache", name: "directory") == "$XDG_CACHE_HOME/facts")
    #expect(document.value(section: "keys", name: "Count") == nil)
    #expect(
      document.entry(section: "keys", name: "session.*")
        == .init(section: "keys", name: "session.*", value: "memory", line: 5))
    #expect(document.sectionLines["strategy.cache"] == 12)
    #expect(document.sectionLines[""] == nil)
    let rooted = try INIDocument(parsing: "a = # b\n[s]\na = ;\n", origin: "q.ini")
    #expect(rooted.sections == ["", "s"])
    #expect(rooted.entries.map(\.value) == ["# b", ";"])
    #expect(INIDocument() == (try INIDocument(parsing: "", origin: "q.ini")))
    #expect(
      (try INIDocument(parsing: "a = \u{E9}", origin: "q.ini"))
        != (try INIDocument(parsing: "a = e\u{301}", origin: "q.ini")))
  }

  /// Speed is measured by `make bench`, not here (the config benchmark parses 1,000 sections).
  @Test("a 20,000-line file parses and renders back byte for byte")
  func largeFile() throws {
    var text = ""
    for section in 0..<1_000 {
      text += "\n# section \(section)\n[s\(section)]\n"
      for key in 0..<17 { text += "key\(key) = \"value \(key)\\n\" \r\n" }
    }
    let document = try INIDocument(parsing: text, origin: "big.ini")
    #expect(document.entries.count == 17_000)
    #expect(document.render() == text)
  }

  /// The configuration example from the documentation, with comments in both styles.
  static let sample = #"""
    # Which strategy stores each key. Longest matching pattern wins; "*" is the fallback.
    [keys]
    count         = defaults
    favoriteFacts = file
    session.*     = memory

    # Options for a strategy kind, by its name...
    [strategy.file]
    directory = $XDG_DATA_HOME/facts
    throttle  = 1s

    [strategy.cache]
    kind      = file
    directory = $XDG_CACHE_HOME/facts

    ; Options for one key
    [key.favoriteFacts]
    path = favorite-facts.json
    title = "Favourite \"facts\"\n"

    """#

  /// `text` with every other LF turned into CRLF, as after a careless edit on another system.
  static func withMixedEndings(_ text: String) -> String {
    var result = ""
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    for (index, line) in lines.enumerated() {
      if index > 0 { result += index % 2 == 1 ? "\r\n" : "\n" }
      result += line
    }
    return result
  }
}

/// Seeded so that a failure names the seed and iteration that reproduce it.
/// Strings weighted towards what breaks INI writers: syntax characters, line breaks, controls,
/// combining marks, Unicode whitespace and scalars from every plane.
private func randomValue(using random: inout SplitMix64) -> String {
  let syntax = Array(#""\=#;[]{}u \t\r\n"#.unicodeScalars)
  let unusual: [UInt32] = [0x85, 0xA0, 0x200B, 0x2028, 0x2029, 0x3000, 0xFEFF, 0x10FFFF]
  var scalars = String.UnicodeScalarView()
  for _ in 0..<Int.random(in: 0...10, using: &random) {
    let value: UInt32
    switch Int.random(in: 0..<8, using: &random) {
    case 0, 1: value = syntax[Int.random(in: 0..<syntax.count, using: &random)].value
    case 2:
      value =
        Bool.random(using: &random)
        ? .random(in: 0...0x1F, using: &random) : .random(in: 0x7F...0x9F, using: &random)
    case 3: value = .random(in: 0x300...0x36F, using: &random)
    case 4: value = unusual[Int.random(in: 0..<unusual.count, using: &random)]
    case 5: value = .random(in: 0x20...0x7E, using: &random)
    case 6: value = .random(in: 0...0xFFFF, using: &random)
    default: value = .random(in: 0...0x10FFFF, using: &random)
    }
    scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
  }
  return String(scalars)
}

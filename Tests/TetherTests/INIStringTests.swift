import Testing
import Tether

@Suite("INIString")
struct INIStringTests {
  @Test(
    "encode writes bare text when it reads back identically, quoted text otherwise",
    arguments: [
      ("plain", "plain"),
      ("a = b # not a comment", "a = b # not a comment"),
      (#"a "quoted" word"#, #"a "quoted" word"#),
      (#"C:\path"#, #"C:\path"#),
      ("[x]", "[x]"),
      ("caf\u{E9} e\u{301} \u{1F600}", "caf\u{E9} e\u{301} \u{1F600}"),
      ("\u{301}leading mark", "\u{301}leading mark"),
      ("", #""""#),
      (" lead", #"" lead""#),
      ("trail ", #""trail ""#),
      ("tab\tinside", #""tab\tinside""#),
      (#""starts with quote"#, #""\"starts with quote""#),
      ("two\nlines", #""two\nlines""#),
      ("cr\rlf", #""cr\rlf""#),
      (#"quote " and \ with break"# + "\n", #""quote \" and \\ with break\n""#),
      ("nul\u{0}del\u{7F}c1\u{85}", #""nul\u{0}del\u{7F}c1\u{85}""#),
      ("ls\u{2028}ps\u{2029}", #""ls\u{2028}ps\u{2029}""#),
      ("\u{A0}nbsp", "\"\u{A0}nbsp\""),
      ("ideographic\u{3000}", "\"ideographic\u{3000}\""),
    ])
  func encode(value: String, literal: String) {
    #expect(Array(INIString.encode(value).unicodeScalars) == Array(literal.unicodeScalars))
  }

  @Test(
    "decode takes bare text verbatim after trimming spaces and tabs, and unescapes quoted text",
    arguments: [
      ("  plain text \t", "plain text"),
      (#"a "b" c\n"#, #"a "b" c\n"#),
      ("# kept", "# kept"),
      ("", ""),
      (" \t ", ""),
      ("\u{A0}x\u{3000}", "\u{A0}x\u{3000}"),
      (#""""#, ""),
      (#"  " spaced "  "#, " spaced "),
      (#""\"\\\n\r\t""#, "\"\\\n\r\t"),
      (#""\u{41}\u{0}\u{1F600}\u{10FFFF}\u{00000041}""#, "A\u{0}\u{1F600}\u{10FFFF}A"),
      ("\"raw\ttab\"", "raw\ttab"),
    ])
  func decode(literal: String, value: String) throws {
    let decoded = try INIString.decode(literal, location: "t.ini:1")
    #expect(Array(decoded.unicodeScalars) == Array(value.unicodeScalars))
  }

  @Test(
    "decode rejects malformed quoted literals with a message saying what was expected",
    arguments: [
      (#""open"#, #"unterminated quoted string (missing closing ")"#),
      (#"""#, #"unterminated quoted string (missing closing ")"#),
      (#""ends in backslash\"#, #"unterminated quoted string (missing closing ")"#),
      (#""escaped quote\""#, #"unterminated quoted string (missing closing ")"#),
      (#""a" b"#, "unexpected text after closing quote"),
      (#""a"""#, "unexpected text after closing quote"),
      (#""a\qb""#, #"invalid escape \q in quoted string"#),
      (#""a\'b""#, #"invalid escape \' in quoted string"#),
      ("\"a\\\u{1}b\"", #"invalid escape in quoted string: "\" followed by \u{1}"#),
      (#""\u{D800}""#, unicodeMessage(#"\u{D800}"#)),
      (#""\u{DFFF}""#, unicodeMessage(#"\u{DFFF}"#)),
      (#""\u{110000}""#, unicodeMessage(#"\u{110000}"#)),
      (#""\u{}""#, unicodeMessage(#"\u{}"#)),
      (#""\u{123456789}""#, unicodeMessage(#"\u{123456789}"#)),
      (#""\u{0000000000000041}""#, unicodeMessage(#"\u{000000000...}"#)),
      (#""\u{41""#, unicodeMessage(#"\u{41"#)),
      (#""\u{4G}""#, unicodeMessage(#"\u{4"#)),
      (#""\u41""#, unicodeMessage(#"\u"#)),
      (#""\u"#, unicodeMessage(#"\u"#)),
    ])
  func decodeError(literal: String, message: String) {
    #expect(throws: TetherError.invalidConfiguration(message: message, location: "t.ini:7")) {
      try INIString.decode(literal, location: "t.ini:7")
    }
  }

  @Test("every scalar of the planes in use round-trips alone and between other text")
  func everyScalarRoundTrips() throws {
    // Planes 4 to 13 are unassigned; the document round-trip test draws from them at random.
    for value in Array(0...0x3FFFF) + Array(0xE0000...0x10FFFF) {
      guard let scalar = Unicode.Scalar(UInt32(value)) else { continue }
      for text in [String(scalar), "a\(scalar)b"] {
        let decoded = try INIString.decode(INIString.encode(text), location: "t.ini:1")
        guard decoded.unicodeScalars.elementsEqual(text.unicodeScalars) else {
          Issue.record(
            "U+\(String(value, radix: 16)) in \(text.debugDescription) did not round-trip")
          return
        }
      }
    }
  }

  @Test("a huge literal decodes without trouble")
  func hugeLiteral() throws {
    let body = String(repeating: #"x\"\u{1F600}"#, count: 100_000)
    let decoded = try INIString.decode("\"\(body)\"", location: "t.ini:1")
    #expect(decoded.unicodeScalars.count == 300_000)
  }
}

private func unicodeMessage(_ shown: String) -> String {
  "invalid escape \(shown) in quoted string: expected \\u{X} with 1 to 8 hex digits naming a "
    + "Unicode scalar value (0-D7FF or E000-10FFFF)"
}

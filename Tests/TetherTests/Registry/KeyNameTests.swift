import Testing
import Tether

/// The one grammar of key names that the registry, every strategy and the tool check.
@Suite struct KeyNameTests {
  @Test(arguments: ["count", "ui.theme", "a-b_c.D9", "x", String(repeating: "n", count: 200)])
  func namesAConfigCanWriteAreValid(_ name: String) throws {
    try KeyName.validate(name)
  }

  @Test(arguments: [
    ("", "a key name cannot be empty"),
    (String(repeating: "n", count: 201), "it is 201 bytes long; a key name has at most 200"),
    ("a\u{01}b", #"it contains the control character "\u{01}"; "#),
    ("demo.x = 1\n[ui]\ntheme", #"it contains the control character "\n"; "#),
    ("../../escaped", #""/" would make a path of it; use "." between parts"#),
    ("session.*", #""*" is for patterns under [keys], not for a key's name"#),
    ("a b", #"it contains " "; a key name uses letters, digits, "_", "-" and "." only"#),
    ("thé", #"it contains "é"; "#),
    ("..", "dots go between the parts of a name"),
    (".hidden", "dots go between the parts of a name"),
    ("ui.", "dots go between the parts of a name"),
    ("ui..theme", "dots go between the parts of a name"),
  ])
  func namesOutsideTheGrammarAreRefusedSayingWhy(_ name: String, _ reason: String) {
    #expect(throws: TetherError.self) { try KeyName.validate(name) }
    let problem = KeyName.problem(with: name)
    #expect(problem?.hasPrefix(reason) == true, "\(String(describing: problem))")
  }

  /// The name is shown escaped, and a long one cut short: the message stays one short line.
  @Test func theErrorShowsTheNameEscapedAndShort() {
    let control = TetherError.invalidKeyName("a\nb", reason: "why")
    #expect(control.description == #"invalid key name "a\nb": why"#)
    let long = TetherError.invalidKeyName(String(repeating: "x", count: 5000), reason: "why")
    #expect(
      long.description
        == "invalid key name \"\(String(repeating: "x", count: 40))…\" (5000 bytes): why")
  }
}

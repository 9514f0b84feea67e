import Foundation
import Testing
import TetherTesting

@Suite struct CheckTests {
  @Test func theShippedConfigIsValid() async throws {
    let result = try await tether(["check", "--config", shippedConfig])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.hasPrefix("\(shippedConfig): OK: 4 key mappings"))
  }

  @Test(arguments: [
    (
      "[keys]\ncount = fiel\n",
      #"bad.conf:2: unknown strategy "fiel"; registered: defaults, environment, file, memory"#
    ),
    ("[strategy.file]\nthrotle = 1s\n", "bad.conf:2: unknown option throtle in [strategy.file]"),
    ("[keys]\na = memory\na = file\n", #"bad.conf:3: duplicate key "a" (first defined at line 2)"#),
    ("[keys]\n[keys]\n", "bad.conf:2: duplicate section [keys] (first at line 1)"),
    ("[keys]\ncount memory\n", #"bad.conf:2: expected "name = value", "[section]" or a comment"#),
    ("[keys]\na = \"memory\n", #"bad.conf:2: unterminated quoted string (missing closing ")"#),
    (
      "[strategy.file]\nthrottle = soon\n",
      #"bad.conf:2: option "throttle": expected a duration such as 250ms, 1s or 2m, found "soon""#
    ),
    (
      "[keys]\nsession.* = nope\n",
      #"bad.conf:2: unknown strategy "nope"; registered: defaults, environment, file, memory"#
    ),
    (
      "[keys]\nx = file\n[key.x]\npath = ../x.json\n",
      #"bad.conf:4: path "../x.json" of key "x" escapes the directory of strategy "file""#
    ),
  ])
  func aBadConfigExitsOneWithFileLineAndReason(_ text: String, _ expected: String) async throws {
    try await withTemporaryDirectory { folder in
      let config = folder.appending(path: "bad.conf")
      try Data(text.utf8).write(to: config)
      let result = try await tether(["check", "--config", config.path])
      #expect(result.status == 1)
      #expect(
        result.errors.contains(expected.replacingOccurrences(of: "bad.conf", with: config.path)),
        "\(result.errors)")
    }
  }

  @Test func everyErrorIsListed() async throws {
    try await withTemporaryDirectory { folder in
      let config = folder.appending(path: "bad.conf")
      try Data("[keys]\na = fiel\n[strategy.memory]\ncolour = red\n".utf8).write(to: config)
      let result = try await tether(["check", "--config", config.path])
      #expect(result.status == 1)
      let errors = result.errors.split(separator: "\n").filter { !$0.hasPrefix("note:") }
      #expect(errors.count == 2, "\(result.errors)")
    }
  }

  /// Ten independent mistakes, ten errors in one run, each at its line: a config with ten took
  /// six rounds of fixing and checking again.
  @Test func tenIndependentMistakesAreTenErrors() async throws {
    try await withTemporaryDirectory { folder in
      let config = folder.appending(path: "bad.conf")
      try Data(
        """
        [keys]
        a = memory
        b = fiel
        a = file
        c =
        d = file
        e memory
        [strategy.file]
        throttle = 1s
        colour = red
        [key.d]
        path = ../../etc/passwd
        lable = x
        [key.z]
        path = z.json
        [strategy.defaults]
        file = data     # relative to the config
        [keys]
        f = memory
        """.utf8
      ).write(to: config)
      let result = try await tether(["check", "--config", config.path])
      #expect(result.status == 1)
      let errors = result.errors.split(separator: "\n").filter { !$0.hasPrefix("note:") }
      let lines = errors.map { $0.dropFirst(config.path.count + 1).prefix { $0 != ":" } }
      #expect(
        lines == ["3", "4", "5", "7", "10", "12", "13", "14", "17", "18"], "\(result.errors)")
    }
  }
}

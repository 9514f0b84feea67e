import Foundation
import Testing
import Tether
import TetherInMemory
import TetherTesting

/// Every startup error names the file and line, and says what was expected.
@Suite struct ConfigErrorTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let expected: String
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "a key section naming a pattern",
      text: "[keys]\nsession.* = probe\n\n[key.session.*]\npath = s.json\n",
      expected:
        "t.conf:4: [key.session.*] names a pattern; a key section gives the options of one key"),
    Case(
      name: "unknown strategy lists the registered kinds",
      text: "[keys]\ncount = fiel\n",
      expected: #"t.conf:2: unknown strategy "fiel"; registered: loose, memory, probe"#),
    Case(
      name: "a pattern mapping to an unknown strategy",
      text: "[keys]\ncount = memory\nsession.* = nope\n",
      expected: #"t.conf:3: unknown strategy "nope"; registered: loose, memory, probe"#),
    Case(
      name: "unknown option",
      text: "[keys]\n* = probe\n\n[strategy.probe]\nthrottle = 1s\nthrotle = 2s\n",
      expected: "t.conf:6: unknown option throtle in [strategy.probe]"),
    Case(
      name: "unknown option of a kind that reads none",
      text: "[strategy.memory]\ncolour = red\n[keys]\n* = memory\n",
      expected: "t.conf:2: unknown option colour in [strategy.memory]"),
    Case(
      name: "unknown per-key option, declared by the strategy",
      text: "[keys]\nx = probe\n[key.x]\npath = x.json\nlable = y\n",
      expected: "t.conf:5: unknown option lable in [key.x]"),
    Case(
      name: "an exact name no key can have",
      text: "[keys]\nui..theme = memory\n",
      expected: "t.conf:2: \"ui..theme\" is not a key name: dots go between the parts of a name "
        + "(ui.theme), not first, last or twice in a row"),
    Case(
      name: "duplicate key",
      text: "[keys]\ncount = memory\n# again\ncount = probe\n",
      expected: #"t.conf:4: duplicate key "count" (first defined at line 2)"#),
    Case(
      name: "duplicate section",
      text: "[keys]\na = memory\n[strategy.probe]\n[keys]\n",
      expected: "t.conf:4: duplicate section [keys] (first at line 1)"),
    Case(
      name: "malformed line",
      text: "[keys]\ncount memory\n",
      expected: #"t.conf:2: expected "name = value", "[section]" or a comment"#),
    Case(
      name: "unterminated quote",
      text: "[keys]\ncount = \"memory\n",
      expected: #"t.conf:2: unterminated quoted string (missing closing ")"#),
    Case(
      name: "bad duration",
      text: "[keys]\n* = probe\n[strategy.probe]\nthrottle = 5 seconds\n",
      expected:
        #"t.conf:4: option "throttle": expected a duration such as 250ms, 1s or 2m, found "5 seconds""#
    ),
    Case(
      name: "bad boolean",
      text: "[strategy.probe]\nverbose = maybe\n",
      expected: #"t.conf:2: option "verbose": expected true or false, found "maybe""#),
    Case(
      name: "bad integer",
      text: "[strategy.probe]\nretries = many\n",
      expected: #"t.conf:2: option "retries": expected a whole number, found "many""#),
    Case(
      name: "a path escaping its directory",
      text: "[keys]\nx = probe\n\n[key.x]\npath = ../../etc/passwd\n",
      expected:
        #"t.conf:5: path "../../etc/passwd" of key "x" escapes the directory of strategy "probe"; use a relative path inside it, or set allow-absolute-paths = true in [strategy.probe]"#
    ),
    Case(
      name: "an absolute key path",
      text: "[keys]\nx = probe\n[key.x]\npath = /tmp/x.json\n",
      expected:
        #"t.conf:4: path "/tmp/x.json" of key "x" escapes the directory of strategy "probe"; use a relative path inside it, or set allow-absolute-paths = true in [strategy.probe]"#
    ),
    Case(
      name: "an empty mapping",
      text: "[keys]\nx =\n",
      expected: #"t.conf:2: empty mapping: "x" needs a strategy, e.g. x = memory"#),
    Case(
      name: "a key section no [keys] entry matches",
      text: "[keys]\nsession.* = memory\n\n[key.count]\npath = c.json\n",
      expected:
        #"t.conf:4: [key.count] matches no entry in [keys]; map "count" to a strategy there"#
    ),
    Case(
      name: "an unknown section",
      text: "[keys]\nx = memory\n[strategies.file]\n",
      expected:
        "t.conf:3: unknown section [strategies.file]; expected [keys], [strategy.NAME] or [key.NAME]"
    ),
    Case(
      name: "a named instance of an unknown kind",
      text: "[strategy.cache]\nkind = fil\n",
      expected: #"t.conf:2: unknown strategy kind "fil"; registered: loose, memory, probe"#),
    Case(
      name: "a named instance without a kind",
      text: "[keys]\nx = cache\n[strategy.cache]\n",
      expected:
        #"t.conf:3: unknown strategy kind "cache"; registered: loose, memory, probe (a named instance needs kind = KIND)"#
    ),
    Case(
      name: "an entry outside any section",
      text: "# top\ncount = memory\n[keys]\n",
      expected:
        #"t.conf:2: "count" is outside any section; put it under [keys], [strategy.NAME] or [key.NAME]"#
    ),
    Case(
      name: "a star inside a pattern",
      text: "[keys]\na*b = memory\n",
      expected: #"t.conf:2: "*" may only end a pattern, as in session.* or *, in "a*b""#),
    Case(
      name: "an unknown variable in a path",
      text: "[strategy.probe]\ndirectory = $DATA/x\n",
      expected:
        #"t.conf:2: option "directory": unknown variable $DATA; paths may start with ~, $HOME or $XDG_CACHE_HOME, $XDG_CONFIG_HOME, $XDG_DATA_HOME, $XDG_STATE_HOME in "$DATA/x""#
    ),
  ]

  @Test(arguments: cases)
  func errorsNameTheFileLineAndReason(_ example: Case) {
    let error = configError(example.text)
    #expect(error?.description == example.expected)
    #expect(error?.errorDescription == example.expected)
  }

  @Test func allowAbsolutePathsLetsAKeyPathLeaveTheDirectory() throws {
    _ = try StrategyRegistry(
      configuration: .string(
        "[keys]\nx = probe\n[strategy.probe]\nallow-absolute-paths = true\n[key.x]\npath = /tmp/x\n"
      ),
      strategies: testStrategies)
  }

  @Test func aMissingConfigFileIsReportedWithItsPath() {
    #expect(throws: TetherError.self) {
      try StrategyRegistry(configuration: .file("/nonexistent/tether.conf"), strategies: [])
    }
  }

  @Test func aSecondBootstrapThrows() throws {
    let scope = TetherScope()
    let registry = try StrategyRegistry(configuration: .string(""), strategies: [])
    try scope.install(registry)
    #expect(throws: TetherError.alreadyBootstrapped) { try scope.install(registry) }
  }

  @Test func theProcessBootstrapRunsOnce() throws {
    // The process's registry: every other test uses `withBootstrap`, which overrides it.
    let configuration = TetherConfiguration.string("[keys]\nprocess.* = memory\n")
    try TetherSystem.bootstrap(configuration: configuration, strategies: [InMemoryStrategy.self])
    #expect(throws: TetherError.alreadyBootstrapped) {
      try TetherSystem.bootstrap(configuration: configuration, strategies: [InMemoryStrategy.self])
    }
    #expect(
      TetherError.alreadyBootstrapped.description.contains("TetherSystem.withBootstrap"))
  }

  @Test func anUnknownPerKeyOptionOfAnUndeclaringStrategyFailsAtFirstUse() async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string(
        "[keys]\nx = loose\n[key.x]\nlabel = a\nlable = b\n", origin: "t.conf"),
      strategies: testStrategies
    ) {
      @Shared(.registered("x")) var x = 0
      #expect(
        ($x.loadError as? TetherError)?.description == "t.conf:5: unknown option lable in [key.x]")
    }
  }
}

extension ConfigErrorTests {
  @Test func diagnoseReportsEveryErrorNotJustTheFirst() {
    let errors = StrategyRegistry.diagnose(
      configuration: .string(
        """
        [keys]
        a = fiel
        b = memory
        [strategy.memory]
        colour = red
        [key.c]
        path = x
        """, origin: "t.conf"), strategies: testStrategies)
    #expect(
      errors.map(\.description) == [
        #"t.conf:2: unknown strategy "fiel"; registered: loose, memory, probe"#,
        "t.conf:5: unknown option colour in [strategy.memory]",
        #"t.conf:6: [key.c] matches no entry in [keys]; map "c" to a strategy there"#,
      ])
  }
}

extension ConfigErrorTests {
  @Test func diagnoseReportsEveryUnknownOptionOfASection() {
    let errors = StrategyRegistry.diagnose(
      configuration: .string(
        "[strategy.memory]\ncolour = red\nsize = 2\n[keys]\n* = memory\n", origin: "t.conf"),
      strategies: testStrategies)
    #expect(
      errors.map(\.description) == [
        "t.conf:2: unknown option colour in [strategy.memory]",
        "t.conf:3: unknown option size in [strategy.memory]",
      ])
  }
}

extension ConfigErrorTests {
  @Test func aRelativeConfigPathResolvesAgainstTheCurrentFolder() {
    let cwd = FileManager.default.currentDirectoryPath
    #expect(TetherConfiguration.file("Config/tether.conf").baseDirectory.path == cwd + "/Config")
    #expect(TetherConfiguration.file("/etc/app/tether.conf").baseDirectory.path == "/etc/app")
    #expect(TetherConfiguration.string("").baseDirectory.path == cwd)
  }
}

extension ConfigErrorTests {
  @Test func diagnoseReportsTheLinesThatDoNotParseAndGoesOnPastThem() {
    let errors = StrategyRegistry.diagnose(
      configuration: .string(
        """
        [keys]
        a = memory
        a = memory
        b = "unclosed
        c = fiel
        [strategy.memory]
        colour = red
        [keys]
        d = memory
        [strategy.
        e = memory
        [key.z]
        path = x
        """, origin: "t.conf"), strategies: testStrategies)
    #expect(
      errors.map(\.description) == [
        #"t.conf:3: duplicate key "a" (first defined at line 2)"#,
        #"t.conf:4: unterminated quoted string (missing closing ")"#,
        #"t.conf:5: unknown strategy "fiel"; registered: loose, memory, probe"#,
        "t.conf:7: unknown option colour in [strategy.memory]",
        "t.conf:8: duplicate section [keys] (first at line 1)",
        #"t.conf:10: expected "]" to close the section header"#,
        #"t.conf:12: [key.z] matches no entry in [keys]; map "z" to a strategy there"#,
      ])
  }

  /// The grammar has whole-line comments only: a value that looks as if it ends in one (a
  /// space or tab, then `#` or `;`) is an error at its line, unless it is quoted. The rest is
  /// checked for the value without it: no "unknown strategy" or "not a duration" besides, but
  /// a misspelt option on such a line is still found.
  @Test func aValueThatLooksAsIfItEndsInACommentIsAnError() throws {
    let text = """
      [keys]
      a = memory
      b = memory  # the rest
      c = loose
      d = memory\t; the rest
      [strategy.probe]
      throttle = 1s # one second
      directory = data     # relative to the config
      colour = red  # mine
      [key.c]
      label = "kept # quoted"
      """
    let expected = [
      #"t.conf:3: the value of "b" would be "memory  # the rest", comment included: comments take whole lines; put the comment on a line of its own, or quote the value to keep the text"#,
      #"t.conf:5: the value of "d" would be "memory\t; the rest", comment included: comments take whole lines; put the comment on a line of its own, or quote the value to keep the text"#,
      #"t.conf:7: the value of "throttle" would be "1s # one second", comment included: comments take whole lines; put the comment on a line of its own, or quote the value to keep the text"#,
      #"t.conf:8: the value of "directory" would be "data     # relative to the config", comment included: comments take whole lines; put the comment on a line of its own, or quote the value to keep the text"#,
      #"t.conf:9: the value of "colour" would be "red  # mine", comment included: comments take whole lines; put the comment on a line of its own, or quote the value to keep the text"#,
      "t.conf:9: unknown option colour in [strategy.probe]",
    ]
    let errors = StrategyRegistry.diagnose(
      configuration: .string(text, origin: "t.conf"), strategies: testStrategies)
    #expect(errors.map(\.description) == expected)
    let thrown = try #require(configError(text))
    #expect(thrown == .multiple(errors))
  }
}

import Testing
import Tether
import TetherTesting

/// `tether check` lists every error of a config in one run: no mistake hides another.
@Suite struct DiagnoseTests {
  static let tenMistakes = """
    stray = memory
    [keys]
    a = memory
    b = fiel
    a = probe
    c =
    d = probe
    e memory
    [strategy.probe]
    throttle = 1s
    colour = red
    [key.d]
    path = ../../etc/passwd
    lable = x
    [key.z]
    path = z.json
    [keys]
    f = memory
    """

  @Test func tenIndependentMistakesAreTenErrorsEachAtItsLine() throws {
    let expected = [
      #"t.conf:1: "stray" is outside any section; put it under [keys], [strategy.NAME] or [key.NAME]"#,
      #"t.conf:4: unknown strategy "fiel"; registered: loose, memory, probe"#,
      #"t.conf:5: duplicate key "a" (first defined at line 3)"#,
      #"t.conf:6: empty mapping: "c" needs a strategy, e.g. c = memory"#,
      #"t.conf:8: expected "name = value", "[section]" or a comment"#,
      "t.conf:11: unknown option colour in [strategy.probe]",
      #"t.conf:13: path "../../etc/passwd" of key "d" escapes the directory of strategy "probe"; use a relative path inside it, or set allow-absolute-paths = true in [strategy.probe]"#,
      "t.conf:14: unknown option lable in [key.d]",
      #"t.conf:15: [key.z] matches no entry in [keys]; map "z" to a strategy there"#,
      "t.conf:17: duplicate section [keys] (first at line 2)",
    ]
    let errors = StrategyRegistry.diagnose(
      configuration: .string(Self.tenMistakes, origin: "t.conf"), strategies: testStrategies)
    #expect(errors.map(\.description) == expected)
    // Startup throws the same ten at once.
    #expect(configError(Self.tenMistakes) == .multiple(errors))
  }

  /// A strategy that fails to start still has its keys' options checked against its kind and
  /// section; a value with a trailing comment is reported for that alone.
  @Test func aStrategyThatFailsToStartHidesNothingElse() {
    let text = """
      [keys]
      x = cache
      y = probe
      [strategy.cache]
      kind = probe
      throttle = soon
      allow-absolute-paths = sure
      [key.x]
      path = /etc/x
      labl = 1
      [strategy.probe]
      retries = 3 # three
      [strategies.x]
      """
    let errors = StrategyRegistry.diagnose(
      configuration: .string(text, origin: "t.conf"), strategies: testStrategies)
    #expect(
      errors.map(\.description) == [
        #"t.conf:6: option "throttle": expected a duration such as 250ms, 1s or 2m, found "soon""#,
        #"t.conf:7: option "allow-absolute-paths": expected true or false, found "sure""#,
        #"t.conf:9: path "/etc/x" of key "x" escapes the directory of strategy "cache"; use a relative path inside it, or set allow-absolute-paths = true in [strategy.cache]"#,
        "t.conf:10: unknown option labl in [key.x]",
        #"t.conf:12: the value of "retries" would be "3 # three", comment included: comments take whole lines; put the comment on a line of its own, or quote the value to keep the text"#,
        "t.conf:13: unknown section [strategies.x]; expected [keys], [strategy.NAME] or [key.NAME]",
      ])
  }

  /// Two strategy types of one kind are the program's mistake: said, and the config checked
  /// with the first.
  @Test func twoStrategiesOfOneKindAreReportedAndTheConfigStillChecked() {
    let errors = StrategyRegistry.diagnose(
      configuration: .string(
        "[keys]\nx = probe\n[strategy.probe]\ncolour = red\n", origin: "t.conf"),
      strategies: [ProbeStrategy.self, ProbeTwin.self])
    #expect(
      errors.map(\.description) == [
        "t.conf:4: unknown option colour in [strategy.probe]",
        #"<strategies>: strategies ProbeStrategy and ProbeTwin both have kind "probe""#,
      ])
  }

  @Test func aConfigWithoutErrorsHasNone() {
    #expect(
      StrategyRegistry.diagnose(
        configuration: .string("[keys]\nx = probe\n[key.x]\npath = x.json\n"),
        strategies: testStrategies
      ).isEmpty)
  }

  @Test func anUnreadableConfigIsOneErrorNamingIt() {
    let errors = StrategyRegistry.diagnose(
      configuration: .file("/nonexistent/tether.conf"), strategies: testStrategies)
    #expect(
      errors.map(\.description) == [
        "/nonexistent/tether.conf: cannot read the config file: there is no such file"
      ])
  }
}

/// A second strategy type claiming `probe`.
struct ProbeTwin: PersistenceStrategy {
  static let kind = "probe"
  init(options: StrategyOptions) throws {}
  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    throw TetherError.unsupportedType("\(type)", key: name, kind: Self.kind)
  }
}

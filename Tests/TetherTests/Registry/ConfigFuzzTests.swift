import Foundation
import Testing
import Tether

/// Malformed config input gives an error with a line number, never a crash.
@Suite struct ConfigFuzzTests {
  static let sample = """
    # Which strategy stores each key.
    [keys]
    count         = memory
    favoriteFacts = probe
    session.*     = loose
    *             = cache

    [strategy.probe]
    throttle  = 1s
    directory = $XDG_DATA_HOME/facts
    retries   = 3
    verbose   = yes

    [strategy.cache]
    kind = probe
    allow-absolute-paths = true

    [key.favoriteFacts]
    path = favorite-facts.json
    label = "Favourite \\"facts\\""

    """

  /// Words that move a mutated config between grammar paths: kinds, section names, options.
  static let words = [
    "memory", "probe", "loose", "cache", "nope", "keys", "strategy.", "key.", "kind", "path",
    "throttle", "250ms", "2m", "x", "../up", "/abs", "~/h", "$HOME", "$NOPE", "*", "a*b", "=",
    "true", "maybe", "allow-absolute-paths", "[keys]", "[key.count]", "[strategy.loose]",
  ]

  @Test func mutatedConfigsLoadOrFailAtALineInsideTheFile() {
    let seed: UInt64 = 0xC0F1_6003
    var random = SplitMix64(seed: seed)
    var (loaded, failed) = (0, 0)
    for iteration in 0..<10_000 {
      var bytes = Array(Self.sample.utf8)
      for _ in 0..<Int.random(in: 1...3, using: &random) {
        if Bool.random(using: &random) {
          mutate(&bytes, using: &random)
        } else {
          let word = Self.words[Int.random(in: 0..<Self.words.count, using: &random)]
          bytes.insert(contentsOf: word.utf8, at: Int.random(in: 0...bytes.count, using: &random))
        }
      }
      let lines = bytes.split(separator: 10, omittingEmptySubsequences: false).count
      do {
        _ = try StrategyRegistry(
          document: INIDocument(parsing: Data(bytes), origin: "fuzz.conf"), origin: "fuzz.conf",
          baseDirectory: URL(filePath: "/base"), strategies: testStrategies,
          expansion: PathExpansion(environment: ["HOME": "/home/fuzz"]))
        loaded += 1
      } catch let error as TetherError {
        failed += 1
        let line = error.description.split(separator: ":").dropFirst().first.flatMap { Int($0) }
        guard error.description.hasPrefix("fuzz.conf:"), let line, (1...lines).contains(line)
        else {
          Issue.record("seed \(seed), iteration \(iteration): unlocated error \(error)")
          return
        }
      } catch {
        Issue.record("seed \(seed), iteration \(iteration): not a TetherError: \(error)")
        return
      }
    }
    // Both outcomes must be common, or the mutations are not reaching the grammar.
    #expect(loaded > 500 && failed > 500, "loaded \(loaded), failed \(failed)")
  }
}
